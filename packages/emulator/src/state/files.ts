// Stored files and their public links: the records, their blobs on disk, expiry, and the checks other routes make
// (a file of the caller's team, files attached to messages).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { EmuRequest } from '../http/router.js';
import { invalid, notFound } from '../core/errors.js';
import type { Backend } from './backend.js';

export const DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024;
export const PUBLIC_LINK_MAX_BYTES = 50 * 1024 * 1024;
export const DEFAULT_PUBLIC_LINK_QUOTA = 1000;

export interface StoredFile {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  expires_at: number | null;
  filename: string;
  purpose: string;
  content_type: string;
  user_defined_id?: string;
  upload_status: 'Complete';
  team_id: string;
  /** order of creation (tie-break for sorting and paging) */
  seq: number;
  blob: string;
}

export interface PublicLink {
  token: string;
  file_id: string;
  team_id: string;
  created_at: number;
  expires_at: number | null;
  revoked: boolean;
}

export const files = (core: Backend) => core.store.collection<StoredFile>('files');
export const links = (core: Backend) => core.store.collection<PublicLink>('file_links');

export function publicFile(f: StoredFile) {
  return {
    id: f.id,
    object: 'file',
    bytes: f.bytes,
    created_at: f.created_at,
    expires_at: f.expires_at,
    filename: f.filename,
    purpose: f.purpose,
  };
}

export function blobPath(core: Backend, f: StoredFile): string {
  return join(core.store.blobDir('files'), f.blob);
}

export const expired = (core: Backend, expiresAt: number | null) => expiresAt !== null && expiresAt <= core.nowSec();

/** Remove a file and its content (and its links). */
export function removeFile(core: Backend, f: StoredFile): void {
  files(core).delete(f.id);
  rmSync(blobPath(core, f), { force: true });
  for (const l of links(core).values()) if (l.file_id === f.id) l.revoked = true;
  core.store.save();
}

/** Expired files go away when they are next looked at. */
export function sweep(core: Backend): void {
  for (const f of [...files(core).values()]) if (expired(core, f.expires_at)) removeFile(core, f);
}

/** A live file of the caller's team, or 404 (missing, deleted, expired or another team's). */
export function findFile(core: Backend, req: EmuRequest, id: string): StoredFile {
  return liveFile(core, req, id) ?? notFound(`No file with id ${id}`);
}

export function liveFile(core: Backend, req: EmuRequest, id: string): StoredFile | undefined {
  const f = files(core).get(id);
  if (f && expired(core, f.expires_at)) removeFile(core, f);
  return !f || expired(core, f.expires_at) || f.team_id !== req.key?.team_id ? undefined : f;
}

/** The file id a content part attaches, in any convention: chat `file`, responses `input_file`, messages `document`. */
function attachedFileId(part: unknown): unknown {
  if (!part || typeof part !== 'object') return undefined;
  const p = part as Record<string, any>;
  if (p.type === 'file') return p.file?.file_id;
  if (p.type === 'input_file') return p.file_id;
  if (p.type === 'document' && p.source?.type === 'file') return p.source.file_id;
  return undefined;
}

/**
 * Every file a message attaches must be a live file of the caller's team: a deleted, expired, unknown or other
 * team's id is refused with 404 (the spec: a deleted file's id is "unusable in attachments").
 */
export function checkAttachedFiles(core: Backend, req: EmuRequest, messages: unknown): void {
  if (!Array.isArray(messages)) return;
  for (const [i, m] of messages.entries()) {
    const content = (m as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    for (const [j, part] of content.entries()) {
      const id = attachedFileId(part);
      if (id === undefined) continue;
      if (typeof id !== 'string' || id === '') invalid(`Invalid file id in messages[${i}].content[${j}]: a string`);
      if (!liveFile(core, req, id))
        notFound(`No file with id ${id} (messages[${i}].content[${j}]): it was deleted, has expired or never existed`);
    }
  }
}
