// A streaming multipart/form-data parser for the emulator: fields are kept (small), file parts are written to
// disk as they arrive, so a 300 MB upload never sits in memory. Parts are reported in their order on the wire.
import { createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { EmuRequest } from './router.js';
import { HttpError } from '../core/errors.js';
import { PRIVATE_FILE } from '../state/state.js';
import type { Backend } from '../state/backend.js';

export interface FormField {
  kind: 'field';
  name: string;
  value: string;
}

export interface FormFile {
  kind: 'file';
  name: string;
  /** undefined when the part carries no filename */
  filename?: string;
  contentType: string;
  size: number;
  /** where the bytes were written (removed by the caller or by `discard`) */
  path: string;
  /** more bytes than maxFileBytes were sent (the rest was read and dropped) */
  tooLarge: boolean;
}

export type FormPart = FormField | FormFile;

export interface ParseOptions {
  dir: string;
  maxFileBytes: number;
  maxFieldBytes?: number;
}

export function boundaryOf(contentType: string | undefined): string {
  const ct = contentType ?? '';
  if (!/^multipart\/form-data/i.test(ct)) throw new HttpError(400, 'Expected a multipart/form-data body');
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(ct);
  if (!m) throw new HttpError(400, 'The multipart Content-Type has no boundary');
  return m[1] ?? m[2]!;
}

function params(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /;\s*([a-zA-Z0-9_*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(header))) {
    const key = m[1]!.toLowerCase();
    let v = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!.trim();
    if (key.endsWith('*')) {
      const ext = /^([^']*)'[^']*'(.*)$/.exec(v);
      if (ext) v = decodeURIComponent(ext[2]!);
      out[key.slice(0, -1)] = v;
    } else if (out[key] === undefined) out[key] = v;
  }
  return out;
}

export function discard(parts: FormPart[]): void {
  for (const p of parts) if (p.kind === 'file') rmSync(p.path, { force: true });
}

/**
 * The request body as an async iterable that also records it, when small, in the emulator's request log (so tests
 * can look at the multipart body they sent).
 */
export async function* logged(req: EmuRequest, core: Backend, max = 256 * 1024): AsyncGenerator<Buffer> {
  const kept: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.raw as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= max) kept.push(chunk);
    yield chunk;
  }
  const entry = core.requests.find((r) => r.id === req.requestId);
  if (entry && size <= max) entry.body = core.redact(Buffer.concat(kept).toString('utf8'));
}

/** The part whose headers these are: a field (kept in memory) or a file (to be written to `dir`). */
function partFromHeaders(headers: string, dir: string): FormPart {
  let disposition = '';
  let type = 'application/octet-stream';
  for (const l of headers.split('\r\n')) {
    const i = l.indexOf(':');
    if (i < 0) continue;
    const k = l.slice(0, i).trim().toLowerCase();
    const v = l.slice(i + 1).trim();
    if (k === 'content-disposition') disposition = v;
    else if (k === 'content-type') type = v;
  }
  if (!/^form-data/i.test(disposition))
    throw new HttpError(400, 'A multipart part has no `Content-Disposition: form-data` header');
  const p = params(disposition);
  if (p.name === undefined) throw new HttpError(400, 'A multipart part has no name');
  if (p.filename === undefined) return { kind: 'field', name: p.name, value: '' };
  const filename = p.filename.replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');
  return {
    kind: 'file',
    name: p.name,
    filename,
    contentType: type,
    size: 0,
    path: join(dir, `upload-${randomUUID()}`),
    tooLarge: false,
  };
}

/**
 * Where the bytes of the part being read go: a field's chunks (bounded), or a file on disk (bytes beyond the limit
 * dropped).
 */
class PartWriter {
  private field?: { part: FormField; chunks: Buffer[]; size: number };
  private file?: { part: FormFile; ws: WriteStream };

  constructor(
    private readonly maxField: number,
    private readonly maxFile: number,
  ) {}

  begin(part: FormPart): void {
    if (part.kind === 'field') this.field = { part, chunks: [], size: 0 };
    else this.file = { part, ws: createWriteStream(part.path, { mode: PRIVATE_FILE }) };
  }

  async write(data: Buffer): Promise<void> {
    if (data.length === 0) return;
    if (this.field) {
      this.field.size += data.length;
      if (this.field.size > this.maxField)
        throw new HttpError(400, `The form field ${this.field.part.name} is too long (at most ${this.maxField} bytes)`);
      this.field.chunks.push(Buffer.from(data));
    } else if (this.file) {
      const { part, ws } = this.file;
      part.size += data.length;
      if (part.size > this.maxFile) {
        if (!part.tooLarge) {
          part.tooLarge = true;
          ws.end();
        }
        return;
      }
      if (!ws.write(data)) await once(ws, 'drain');
    }
  }

  /** The part is complete: the field's value is set, the file closed. */
  async end(): Promise<void> {
    if (this.field) {
      this.field.part.value = Buffer.concat(this.field.chunks).toString('utf8');
      this.field = undefined;
    }
    if (this.file) {
      const { ws } = this.file;
      if (!ws.writableEnded) ws.end();
      if (!ws.closed) await once(ws, 'close');
      this.file = undefined;
    }
  }
}

/** Read the whole request, writing file parts to `dir`. Throws 400 on a malformed body (files removed). */
export async function parseForm(
  body: AsyncIterable<Buffer>,
  contentType: string | undefined,
  opts: ParseOptions,
): Promise<FormPart[]> {
  const boundary = boundaryOf(contentType);
  const delim = Buffer.from(`\r\n--${boundary}`);
  const headerEnd = Buffer.from('\r\n\r\n');
  const parts: FormPart[] = [];
  const writer = new PartWriter(opts.maxFieldBytes ?? 64 * 1024, opts.maxFileBytes);
  // the leading CRLF lets the first boundary match the same delimiter as the others
  let buf: Buffer = Buffer.from('\r\n');
  let state: 'preamble' | 'after' | 'headers' | 'body' | 'done' = 'preamble';

  try {
    for await (const chunk of body) {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      for (;;) {
        if (state === 'done') {
          buf = Buffer.alloc(0);
          break;
        }
        if (state === 'preamble' || state === 'body') {
          const idx = buf.indexOf(delim);
          if (idx === -1) {
            const keep = delim.length - 1;
            if (buf.length > keep) {
              if (state === 'body') await writer.write(buf.subarray(0, buf.length - keep));
              buf = buf.subarray(buf.length - keep);
            }
            break;
          }
          if (state === 'body') await writer.write(buf.subarray(0, idx));
          await writer.end();
          buf = buf.subarray(idx + delim.length);
          state = 'after';
        }
        if (state === 'after') {
          if (buf.length < 2) break;
          if (buf[0] === 0x2d && buf[1] === 0x2d) {
            state = 'done';
            continue;
          }
          // tolerate transport padding before the CRLF
          const eol = buf.indexOf('\r\n');
          if (eol === -1) {
            if (buf.length > 256) throw new HttpError(400, 'Malformed multipart boundary line');
            break;
          }
          buf = buf.subarray(eol + 2);
          state = 'headers';
        }
        if (state === 'headers') {
          const idx = buf.indexOf(headerEnd);
          if (idx === -1) {
            if (buf.length > 16 * 1024) throw new HttpError(400, 'Multipart part headers are too long');
            break;
          }
          const part = partFromHeaders(buf.subarray(0, idx).toString('utf8'), opts.dir);
          parts.push(part);
          writer.begin(part);
          buf = buf.subarray(idx + headerEnd.length);
          state = 'body';
        }
      }
    }
    if (state !== 'done') throw new HttpError(400, 'The multipart body ended before its closing boundary');
  } catch (err) {
    await writer.end().catch(() => {});
    discard(parts);
    throw err;
  }
  return parts;
}
