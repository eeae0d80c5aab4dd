// Files: streamed multipart upload to disk, list (AIP-160 filter, sort, pagination_token), metadata, content,
// delete, expiry, and public links served without auth from the emulator's public address (quota, revoke).
import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Backend } from '../state/backend.js';
import { queryNumber, type EmuRequest, type EmuResponse, type Router } from '../http/router.js';
import { HttpError, invalid, notFound } from '../core/errors.js';
import { compileFilter, FilterError, type FieldSpec } from '../core/aip160.js';
import { discard, logged, parseForm } from '../http/formdata.js';
import { sendBlob } from '../http/send-blob.js';
import {
  blobPath,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_PUBLIC_LINK_QUOTA,
  expired,
  files,
  findFile,
  links,
  PUBLIC_LINK_MAX_BYTES,
  publicFile,
  removeFile,
  sweep,
  type PublicLink,
  type StoredFile,
} from '../state/files.js';

/** an upload's lifetime in seconds: the document's range, read here (request-check does not check a form's values) */
const UNSUPPORTED_PUBLIC_TYPES = [
  'application/x-msdownload',
  'application/x-executable',
  'application/x-sh',
  'application/x-msi',
];

function validFilename(name: string): boolean {
  return (
    name.trim() !== '' &&
    name !== '.' &&
    name !== '..' &&
    !/[\\/\u0000-\u001f\u007f]/.test(name) &&
    Buffer.byteLength(name) <= 255
  );
}

/**
 * The upload's lifetime: `expires_after` seconds, or its deep-object form (what the OpenAI SDK sends),
 * `expires_after[anchor]` (`created_at`: from the upload) with `expires_after[seconds]`; their values (ranges, the
 * anchor's enum) were checked against the form's schema (request-check.ts), how they go together is checked here.
 */
function formExpiry(field: (name: string) => string | undefined): number | undefined {
  const [anchor, seconds] = [field('expires_after[anchor]'), field('expires_after[seconds]')];
  const plain = field('expires_after');
  if (anchor === undefined && seconds === undefined) return plain === undefined ? undefined : Number(plain);
  if (plain !== undefined)
    invalid(
      'Give `expires_after` or its deep-object form `expires_after[anchor]` and `expires_after[seconds]`, not both',
    );
  if (anchor === undefined || seconds === undefined)
    invalid(
      `Missing \`expires_after[${anchor === undefined ? 'anchor' : 'seconds'}]\`: the deep-object form takes both`,
    );
  return Number(seconds);
}

async function upload(req: EmuRequest, res: EmuResponse, core: Backend): Promise<void> {
  const maxBytes = core.settings.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const dir = core.store.blobDir('files');
  const parts = await parseForm(logged(req, core), req.headers['content-type'], { dir, maxFileBytes: maxBytes });
  try {
    req.checkForm(parts);
    const fileIdx = parts.findIndex((p) => p.kind === 'file' && p.name === 'file');
    // a `file` part there is (the form's schema requires it): one without a filename is a field
    if (fileIdx === -1) invalid('The `file` part has no filename');
    const file = parts[fileIdx]!;
    if (file.kind !== 'file') invalid('The `file` part has no filename');
    const expiresIdx = parts.findIndex((p) => p.name.startsWith('expires_after'));
    if (expiresIdx > fileIdx) invalid(`The \`${parts[expiresIdx]!.name}\` field must appear before the \`file\` part`);
    if (fileIdx !== parts.length - 1) invalid('The `file` part must be the last part of the form');
    if (file.filename === undefined || file.filename === '') invalid('The `file` part has no filename');
    if (!validFilename(file.filename)) invalid(`Invalid filename ${JSON.stringify(file.filename)}`);
    if (file.tooLarge) throw new HttpError(413, `The file exceeds the limit of ${maxBytes} bytes`);
    const field = (name: string) => {
      const p = parts.find((x) => x.name === name);
      return p?.kind === 'field' ? p.value : undefined;
    };
    const expiresAfter = formExpiry(field);
    const now = core.nowSec();
    const id = core.id('file');
    const rec: StoredFile = {
      id,
      object: 'file',
      bytes: file.size,
      created_at: now,
      expires_at: expiresAfter === undefined ? null : now + expiresAfter,
      filename: file.filename,
      purpose: field('purpose') ?? 'assistants',
      content_type: file.contentType.split(';')[0]!.trim() || 'application/octet-stream',
      user_defined_id: field('user_defined_id'),
      upload_status: 'Complete',
      team_id: req.key!.team_id,
      seq: core.store.next('file_seq'),
      blob: id,
    };
    renameSync(file.path, join(dir, rec.blob));
    for (const p of parts) if (p !== file && p.kind === 'file') rmSync(p.path, { force: true });
    files(core).set(id, rec);
    core.store.save();
    res.json(200, publicFile(rec));
  } catch (err) {
    discard(parts);
    throw err;
  }
}

// ---- listing ----

const FILTER_FIELDS: Record<string, FieldSpec<StoredFile>> = {
  name: { kind: 'fuzzy', get: (f) => f.filename },
  file_name: { kind: 'fuzzy', get: (f) => f.filename },
  file_id: { kind: 'exact', get: (f) => f.id },
  size_bytes: { kind: 'int', get: (f) => f.bytes },
  content_type: { kind: 'partial', get: (f) => f.content_type },
  created_at: { kind: 'time', get: (f) => f.created_at },
  expires_at: { kind: 'time', get: (f) => f.expires_at },
  upload_status: { kind: 'exact', get: (f) => f.upload_status },
  user_defined_id: { kind: 'exact', get: (f) => f.user_defined_id },
};

const SORT_KEYS = {
  created_at: (f: StoredFile) => f.created_at,
  filename: (f: StoredFile) => f.filename,
  size: (f: StoredFile) => f.bytes,
} as const;
type SortBy = keyof typeof SORT_KEYS;

interface Cursor {
  s: SortBy;
  o: 'asc' | 'desc';
  v: string | number;
  q: number;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeCursor(token: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Cursor;
    if (typeof c.q !== 'number' || !(c.s in SORT_KEYS)) throw new Error('bad');
    return c;
  } catch {
    invalid(`Invalid pagination_token ${JSON.stringify(token)}`);
  }
}

function list(req: EmuRequest, res: EmuResponse, core: Backend): void {
  sweep(core);
  const q = req.query;
  // limit, order and sort_by are within the document's range and enums (request-check.ts)
  const limit = queryNumber(req, 'limit', 100);
  const order = (q.get('order') ?? 'desc') as 'asc' | 'desc';
  const sortBy = (q.get('sort_by') ?? 'created_at') as SortBy;
  let match: (f: StoredFile) => boolean;
  try {
    match = compileFilter(q.get('filter'), FILTER_FIELDS);
  } catch (err) {
    if (err instanceof FilterError) invalid(err.message);
    throw err;
  }
  const key = SORT_KEYS[sortBy];
  const dir = order === 'asc' ? 1 : -1;
  const cmp = (av: string | number, aq: number, bv: string | number, bq: number) =>
    (av < bv ? -1 : av > bv ? 1 : aq - bq) * dir;
  const team = req.key!.team_id;
  const all = [...files(core).values()]
    .filter((f) => f.team_id === team && match(f))
    .sort((a, b) => cmp(key(a), a.seq, key(b), b.seq));
  let start = 0;
  const token = q.get('pagination_token');
  const after = q.get('after');
  if (token) {
    const c = decodeCursor(token);
    if (c.s !== sortBy || c.o !== order)
      invalid('The pagination_token belongs to a listing with another sort_by or order');
    start = all.findIndex((f) => cmp(key(f), f.seq, c.v, c.q) > 0);
    if (start === -1) start = all.length;
  } else if (after) {
    const i = all.findIndex((f) => f.id === after);
    start = i === -1 ? all.length : i + 1;
  }
  const page = all.slice(start, start + limit);
  const last = page[page.length - 1];
  res.json(200, {
    data: page.map(publicFile),
    pagination_token: last ? encodeCursor({ s: sortBy, o: order, v: key(last), q: last.seq }) : (token ?? ''),
  });
}

// ---- content ----

async function content(req: EmuRequest, res: EmuResponse, core: Backend): Promise<void> {
  const f = findFile(core, req, req.params.id!);
  // raw bytes as application/octet-stream whatever the format (its values the document's enum: request-check.ts)
  await sendBlob(core, res, blobPath(core, f), {
    'content-type': 'application/octet-stream',
    'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(f.filename)}`,
  });
}

// ---- public links ----

function activeLink(core: Backend, l: PublicLink): boolean {
  if (l.revoked || expired(core, l.expires_at)) return false;
  const f = files(core).get(l.file_id);
  return !!f && !expired(core, f.expires_at);
}

async function createLink(req: EmuRequest, res: EmuResponse, core: Backend): Promise<void> {
  const f = findFile(core, req, req.params.id!);
  const body = await req.json<Record<string, unknown>>();
  // expires_after: an integer in the document's range (request-check.ts); beyond the file's own life: state, here
  const expiresAfter = (body.expires_after ?? undefined) as number | undefined;
  const now = core.nowSec();
  if (expiresAfter !== undefined && f.expires_at !== null && expiresAfter > f.expires_at - now) {
    invalid(
      `Invalid value for \`expires_after\`: ${expiresAfter} is greater than the file's remaining lifetime of ` +
        `${f.expires_at - now} seconds`,
    );
  }
  if (f.bytes === 0) invalid('An empty file cannot have a public URL');
  if (f.bytes > PUBLIC_LINK_MAX_BYTES)
    invalid(`A file larger than ${PUBLIC_LINK_MAX_BYTES} bytes cannot have a public URL`);
  if (UNSUPPORTED_PUBLIC_TYPES.includes(f.content_type))
    invalid(`Files of type ${f.content_type} cannot have a public URL`);
  const team = req.key!.team_id;
  const all = [...links(core).values()];
  const existing = all.find((l) => l.file_id === f.id && activeLink(core, l));
  const quota = core.settings.publicLinkQuota ?? DEFAULT_PUBLIC_LINK_QUOTA;
  if (!existing && all.filter((l) => l.team_id === team && activeLink(core, l)).length >= quota) {
    throw new HttpError(
      429,
      `Quota exceeded: the team already has ${quota} active public file URLs; revoke one before creating another`,
    );
  }
  const expiresAt = expiresAfter !== undefined ? now + expiresAfter : f.expires_at;
  // one link per file: sharing again keeps the URL and sets its new expiry
  const link: PublicLink = existing ?? {
    token: core.random(18, 'public-link').toString('base64url'),
    file_id: f.id,
    team_id: team,
    created_at: now,
    expires_at: expiresAt,
    revoked: false,
  };
  link.expires_at = expiresAt;
  links(core).set(link.token, link);
  core.store.save();
  res.json(200, { public_url: `${core.publicUrl}/files/${link.token}`, expires_at: expiresAt });
}

function revokeLink(req: EmuRequest, res: EmuResponse, core: Backend): void {
  const f = findFile(core, req, req.params.id!);
  req.raw.resume();
  const active = [...links(core).values()].filter((l) => l.file_id === f.id && activeLink(core, l));
  for (const l of active) l.revoked = true;
  if (active.length) core.store.save();
  res.json(200, {
    id: f.id,
    revoked: active.length > 0,
    public_url: active[0] ? `${core.publicUrl}/files/${active[0].token}` : '',
  });
}

async function servePublic(req: EmuRequest, res: EmuResponse, core: Backend): Promise<void> {
  const l = links(core).get(req.params.token!);
  if (!l || !activeLink(core, l)) notFound('No such public file');
  const f = files(core).get(l.file_id)!;
  await sendBlob(core, res, blobPath(core, f), {
    'content-type': f.content_type,
    'content-disposition': `inline; filename*=UTF-8''${encodeURIComponent(f.filename)}`,
  });
}

export function register(router: Router): void {
  router.post('/v1/files', upload);
  router.get('/v1/files', list);
  router.get('/v1/files/:id', (req, res, core) => res.json(200, publicFile(findFile(core, req, req.params.id!))));
  router.delete('/v1/files/:id', (req, res, core) => {
    const f = findFile(core, req, req.params.id!);
    removeFile(core, f);
    res.json(200, { id: f.id, deleted: true });
  });
  router.get('/v1/files/:id/content', content);
  router.post('/v1/files/:id/public-url', createLink);
  router.post('/v1/files/:id/public-url/revoke', revokeLink);
  router.get('/public/files/:token', servePublic, { auth: false });
}
