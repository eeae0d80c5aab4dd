// File storage: upload (multipart streamed from disk), list, get, delete, content download, public links.
import type { JsonReply, Query, Schema } from './api-shapes.js';
import { seg, type HttpClient, type HttpResponse } from '../net/http.js';
import { buildMultipart, type MultipartPart } from '../net/multipart.js';
import { expectArray, expectFields } from './guard.js';

/** 50 MB per file (413 above). Taken as MiB, the larger reading, so the client never refuses what the API takes. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;
export const EXPIRES_MIN = 3600;
export const EXPIRES_MAX = 2_592_000;

export type FileObject = Schema<'File'>;

export type FileList = JsonReply<'listFiles'>;

/** svc's own: the local file to upload and its progress callback (uploadFile writes the document's form) */
export interface UploadInput {
  path: string;
  size: number;
  filename: string;
  contentType?: string;
  expiresAfter?: number;
  purpose?: string;
  onProgress?: (sent: number, total: number) => void;
}

export async function uploadFile(http: HttpClient, input: UploadInput): Promise<FileObject> {
  // expires_after must precede the file part, and the file part must be last
  const parts: MultipartPart[] = [];
  if (input.expiresAfter !== undefined) parts.push({ name: 'expires_after', value: String(input.expiresAfter) });
  if (input.purpose !== undefined) parts.push({ name: 'purpose', value: input.purpose });
  parts.push({
    name: 'file',
    filename: input.filename,
    contentType: input.contentType,
    path: input.path,
    size: input.size,
  });
  const mp = buildMultipart(parts, { onProgress: input.onProgress });
  const res = await http.request({
    method: 'POST',
    path: '/v1/files',
    headers: { 'content-type': mp.contentType, 'content-length': String(mp.contentLength) },
    body: mp.body,
  });
  return expectFields(await res.json<FileObject>(), ['id'], 'file upload');
}

export type ListQuery = Query<'listFiles'>;

export async function listFiles(http: HttpClient, q: ListQuery): Promise<FileList> {
  const raw = await http.json<FileList>('GET', '/v1/files', { query: { ...q } });
  expectArray(raw, 'data', 'file list');
  return raw;
}

export async function getFile(http: HttpClient, id: string): Promise<FileObject> {
  return expectFields(await http.json<FileObject>('GET', `/v1/files/${seg(id)}`), ['id'], 'file');
}

export async function deleteFile(http: HttpClient, id: string): Promise<{ id: string; deleted: boolean }> {
  return expectFields(
    await http.json<{ id: string; deleted: boolean }>('DELETE', `/v1/files/${seg(id)}`),
    ['deleted'],
    'file delete',
  );
}

export function fileContent(http: HttpClient, id: string, format?: string): Promise<HttpResponse> {
  return http.request({
    method: 'GET',
    path: `/v1/files/${seg(id)}/content`,
    query: { format },
    headers: { accept: '*/*' },
  });
}

export async function createPublicUrl(
  http: HttpClient,
  id: string,
  expiresAfter?: number,
): Promise<{ public_url: string; expires_at: number | null }> {
  const body = expiresAfter === undefined ? {} : { expires_after: expiresAfter };
  return expectFields(
    await http.json<{ public_url: string; expires_at: number | null }>('POST', `/v1/files/${seg(id)}/public-url`, {
      json: body,
    }),
    ['public_url'],
    'public URL',
  );
}

export async function revokePublicUrl(
  http: HttpClient,
  id: string,
): Promise<{ id: string; revoked: boolean; public_url?: string | null }> {
  return expectFields(
    await http.json<{ id: string; revoked: boolean }>('POST', `/v1/files/${seg(id)}/public-url/revoke`),
    ['revoked'],
    'revoke',
  );
}

/** A MIME type from the file name (the API stores what the part declares). */
export function guessContentType(name: string): string {
  const ext = name.toLowerCase().split('.').pop() ?? '';
  return MIME[ext] ?? 'application/octet-stream';
}

const MIME: Record<string, string> = {
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  html: 'text/html',
  htm: 'text/html',
  json: 'application/json',
  jsonl: 'application/jsonl',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  js: 'text/javascript',
  ts: 'text/plain',
  py: 'text/x-python',
  c: 'text/plain',
  go: 'text/plain',
  rs: 'text/plain',
  sh: 'text/plain',
};
