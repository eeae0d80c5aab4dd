// -a FILE|URL|- (llm's attachments) on chat, responses and messages: a text file goes into the prompt with its name,
// an image is sent as an image, any other document is uploaded (POST /v1/files) and sent by its file id, then deleted
// once the answer is in (unless --keep). Every local file is read, and every check made, before anything is sent.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Context } from '../runtime/context.js';
import type { HttpClient } from '../net/http.js';
import { UsageError, isFileSystemError, fileErrorReason } from '../core/errors.js';
import { fetchUrl } from './fetch-url.js';
import { sniffImage } from './image-ref.js';
import { markStdinRead } from './text-input.js';

/** The files endpoints the command hands in (endpoints/files.ts: cmdutil sits below the endpoints). */
export interface FilesApi {
  uploadFile(http: HttpClient, input: { path: string; size: number; filename: string }): Promise<{ id: string }>;
  deleteFile(http: HttpClient, id: string): Promise<unknown>;
}

/** What the attachments add to a request. */
export interface Attached {
  /** text blocks, one per text attachment, each with its name */
  text: string[];
  /** images: data URLs (local) or the http(s) URL given */
  images: string[];
  /** documents uploaded for this request */
  fileIds: string[];
  /** delete the uploaded documents (unless --keep: then say their ids) */
  cleanup(): Promise<void>;
}

interface Source {
  name: string;
  /** the bytes (a URL that is not fetched, an image URL, has none) */
  data?: Buffer;
  url?: string;
}

const IMAGE_URL = /\.(png|jpe?g|gif|webp)(\?.*)?$/i;

/** The local attachments read (exit 2 for one that cannot be), URLs left for later. */
async function readSources(ctx: Context, values: string[]): Promise<Source[]> {
  const sources: Source[] = [];
  for (const v of values) {
    if (v === '-') {
      if (ctx.streams.stdin.isTTY) throw new UsageError('-a -: stdin is a terminal; pipe the attachment in');
      sources.push({ name: 'stdin', data: await ctx.readStdinBytes() });
      markStdinRead(ctx);
    } else if (/^https?:\/\//i.test(v)) {
      sources.push({ name: basename(new URL(v).pathname) || new URL(v).hostname, url: v });
    } else {
      try {
        sources.push({ name: basename(v), data: readFileSync(v) });
      } catch (err) {
        if (!isFileSystemError(err)) throw err;
        throw new UsageError(`-a: ${v}: ${err.code === 'ENOENT' ? 'no such file' : fileErrorReason(err.code, err)}`);
      }
    }
  }
  return sources;
}

/** Text is UTF-8 without NUL bytes; anything else is a document. */
function asText(data: Buffer): string | undefined {
  if (data.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return undefined;
  }
}

/** A text attachment in the prompt: its name, then its text (docs/text.md). */
export const textBlock = (name: string, text: string): string =>
  `<attachment name="${name.replace(/"/g, "'")}">\n${text.replace(/\n$/, '')}\n</attachment>`;

/**
 * Read, fetch, classify and upload the attachments. `files`: the files endpoints, for a command that can send an
 * uploaded file (svc messages cannot: a document there is exit 2 before anything is uploaded).
 */
export async function attach(
  ctx: Context,
  values: string[] | undefined,
  opts: { keep?: boolean; files?: () => Promise<FilesApi>; images: boolean; command: string },
): Promise<Attached> {
  const out: Attached = { text: [], images: [], fileIds: [], cleanup: async () => {} };
  if (!values?.length) return out;
  const sources = await readSources(ctx, values);
  const documents: Source[] = [];
  for (const s of sources) {
    if (s.url && IMAGE_URL.test(s.url)) {
      if (!opts.images) throw new UsageError(`-a ${s.url}: ${opts.command} takes text attachments only`);
      out.images.push(s.url);
      continue;
    }
    if (s.url) s.data = await fetchUrl(ctx, s.url, '-a');
    const data = s.data!;
    const image = sniffImage(data);
    const text = image ? undefined : asText(data);
    if (image) {
      if (!opts.images) throw new UsageError(`-a ${s.name}: ${opts.command} takes text attachments only`);
      out.images.push(`data:${image};base64,${data.toString('base64')}`);
    } else if (text !== undefined) out.text.push(textBlock(s.name, text));
    else if (!opts.files) {
      const kinds = opts.images ? 'text and image attachments' : 'text attachments only';
      throw new UsageError(`-a ${s.name}: not text or an image, and ${opts.command} takes ${kinds}`);
    } else documents.push(s);
  }
  if (documents.length) await upload(ctx, await opts.files!(), documents, out, !!opts.keep);
  return out;
}

async function upload(ctx: Context, api: FilesApi, documents: Source[], out: Attached, keep: boolean) {
  const { uploadFile, deleteFile } = api;
  const http = await ctx.http();
  const dir = mkdtempSync(join(tmpdir(), 'svc-attach-'));
  try {
    for (const d of documents) {
      const path = join(dir, d.name.replace(/[/\\]/g, '_') || 'attachment');
      writeFileSync(path, d.data!, { mode: 0o600 });
      const file = await uploadFile(http, { path, size: d.data!.length, filename: d.name });
      out.fileIds.push(file.id);
      ctx.out.info(`uploaded ${d.name} as ${file.id}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  out.cleanup = async () => {
    if (keep) return ctx.out.info(`kept the uploaded attachments: ${out.fileIds.join(', ')}`);
    for (const id of out.fileIds) {
      try {
        await deleteFile(http, id);
      } catch (err) {
        ctx.out.warn(`could not delete the uploaded attachment ${id}: ${(err as Error).message}`);
      }
    }
  };
}

/** The flags -a fills on a command that takes images and file ids (chat, responses create). */
interface AttachFlags {
  attach?: string[];
  fragment?: string[];
  keep?: boolean;
  image?: string[];
  fileId?: string[];
}

/**
 * -a and -f on a command: the fragments' text before the prompt's words, the attachments' text blocks after (a
 * blank line between each), the attachments' images and uploaded files
 * added to the command's --image and --file-id; `cleanup` deletes the uploads once the answer is in.
 */
export async function attachToPrompt(
  ctx: Context,
  flags: AttachFlags,
  words: string[],
  opts: { files?: () => Promise<FilesApi>; command: string },
): Promise<{ words: string[]; cleanup: () => Promise<void> }> {
  const images = flags.image !== undefined || opts.files !== undefined;
  const { readFragments } = await import('./fragments.js');
  const fragments = await readFragments(ctx, flags.fragment ?? [], (url) => fetchUrl(ctx, url, '-f'));
  const a = await attach(ctx, flags.attach, { ...opts, keep: flags.keep, images });
  if (a.images.length) flags.image = [...(flags.image ?? []), ...a.images];
  if (a.fileIds.length) flags.fileId = [...(flags.fileId ?? []), ...a.fileIds];
  const prompt = words.join(' ').trim();
  const text = [...fragments, prompt, ...a.text].filter(Boolean).join('\n\n');
  return { words: text ? [text] : [], cleanup: a.cleanup };
}
