// The record/replay fixture (README "Record and replay"): one JSON document, `version` 1, holding each exchange
// (an HTTP request and its reply as timed pieces, or a WebSocket session as timed events each way); audio and other
// binary bodies are files in the folder beside it (`NAME.audio/`), referenced by name, offset and length. A fixture
// is input from another program (a file in a project): its file names are plain names inside that folder, opened
// without following a link, and sizes are capped.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createHash } from 'node:crypto';

export const FIXTURE_VERSION = 1;
/** the fixture document itself */
const MAX_FIXTURE_BYTES = 64 * 1024 * 1024;
/** each file beside it */
const MAX_ASSET_BYTES = 512 * 1024 * 1024;

/** Bytes of a file beside the fixture. */
export interface FileRange {
  file: string;
  offset: number;
  length: number;
}

/** Text, with base64 audio taken out into files (put back at `at`, a character index, when replayed). */
export interface TextPayload {
  text: string;
  audio?: (FileRange & { at: number })[];
}

export type Payload = TextPayload | FileRange;

/** What a request is matched on: a JSON body's fields, a form's fields and files, or the bytes' digest. */
export interface BodyShape {
  json?: Record<string, unknown>;
  form?: {
    fields: Record<string, string[]>;
    files: Record<string, { filename?: string; size: number; sha256: string }[]>;
  };
  sha256?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string[]>;
  headers: Record<string, string>;
  body?: BodyShape;
}

export interface TimedPiece {
  /** ms after the reply's headers (an HTTP body) or the socket's opening (a WebSocket event) */
  t: number;
  data: Payload;
}

export interface HttpExchange {
  kind: 'http';
  id: number;
  request: RecordedRequest;
  reply: { status: number; headers: Record<string, string>; latency_ms: number; body: TimedPiece[] };
}

export interface WsEvent extends TimedPiece {
  from: 'client' | 'server';
  /** a JSON event's `type`, or `binary` for a binary frame */
  type: string;
  binary?: boolean;
}

export interface WsExchange {
  kind: 'websocket';
  id: number;
  request: RecordedRequest;
  /** 101, or the refusal's status and body */
  reply: { status: number; headers: Record<string, string>; body?: Payload };
  events: WsEvent[];
  close?: { from: 'client' | 'server'; code: number; reason: string; t: number };
}

export type Exchange = HttpExchange | WsExchange;

export interface FixtureDocument {
  version: number;
  /** the origin recorded from (informative) */
  upstream?: string;
  recorded_at?: string;
  exchanges: Exchange[];
}

export class ReplayFixtureError extends Error {}

/** The folder of a fixture's files: `rec.json` → `rec.audio/`. */
export function assetDir(fixturePath: string): string {
  return join(dirname(fixturePath), `${basename(fixturePath).replace(/\.jsonl?$/i, '')}.audio`);
}

const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$/;

/** A loaded fixture: its exchanges, and the bytes of its files (read once, each checked). */
export class ReplayFixture {
  private constructor(
    readonly path: string,
    readonly doc: FixtureDocument,
    private readonly files: Map<string, Buffer>,
  ) {}

  static load(path: string): ReplayFixture {
    const text = readCapped(path, MAX_FIXTURE_BYTES, 'the fixture');
    let doc: FixtureDocument;
    try {
      doc = JSON.parse(text.toString('utf8')) as FixtureDocument;
    } catch (err) {
      throw new ReplayFixtureError(`not JSON: ${(err as Error).message}`);
    }
    if (typeof doc !== 'object' || doc === null || doc.version !== FIXTURE_VERSION)
      throw new ReplayFixtureError(
        `version ${JSON.stringify(doc?.version)} is not supported (this emulator reads version ${FIXTURE_VERSION})`,
      );
    if (!Array.isArray(doc.exchanges)) throw new ReplayFixtureError('`exchanges` must be a list');
    const files = new Map<string, Buffer>();
    const dir = assetDir(path);
    for (const range of fileRanges(doc)) {
      if (typeof range.file !== 'string' || !FILE_NAME.test(range.file))
        throw new ReplayFixtureError(`file ${JSON.stringify(range.file)}: a plain name in ${dir} is expected`);
      if (!files.has(range.file)) files.set(range.file, readCapped(join(dir, range.file), MAX_ASSET_BYTES, 'a file'));
      const size = files.get(range.file)!.length;
      if (!(Number.isInteger(range.offset) && Number.isInteger(range.length)) || range.offset < 0)
        throw new ReplayFixtureError(`file ${range.file}: offset and length must be whole numbers`);
      if (range.offset + range.length > size)
        throw new ReplayFixtureError(`file ${range.file}: ${range.offset}+${range.length} is beyond its ${size} bytes`);
    }
    return new ReplayFixture(path, doc, files);
  }

  /** The bytes of a payload as they went over the wire. */
  bytes(p: Payload): Buffer {
    if ('file' in p) return this.range(p);
    return Buffer.from(this.text(p), 'utf8');
  }

  /** A text payload with its audio put back as base64. */
  text(p: TextPayload): string {
    if (!p.audio?.length) return p.text;
    let out = '';
    let last = 0;
    for (const hole of p.audio) {
      out += p.text.slice(last, hole.at) + this.range(hole).toString('base64');
      last = hole.at;
    }
    return out + p.text.slice(last);
  }

  private range(r: FileRange): Buffer {
    return this.files.get(r.file)!.subarray(r.offset, r.offset + r.length);
  }
}

function* fileRanges(doc: FixtureDocument): Generator<FileRange> {
  const ofPayload = function* (p: Payload | undefined): Generator<FileRange> {
    if (!p) return;
    if ('file' in p) yield p;
    else for (const hole of p.audio ?? []) yield hole;
  };
  for (const ex of doc.exchanges) {
    if (ex.kind === 'http') for (const piece of ex.reply?.body ?? []) yield* ofPayload(piece.data);
    else {
      yield* ofPayload(ex.reply?.body);
      for (const ev of ex.events ?? []) yield* ofPayload(ev.data);
    }
  }
}

/** A file read whole, opened without following a final link, refused over `max` bytes. */
function readCapped(path: string, max: number, what: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (err) {
    throw new ReplayFixtureError(`${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ReplayFixtureError(`${what} ${path} is not a regular file`);
    if (st.size > max) throw new ReplayFixtureError(`${what} ${path} is ${st.size} bytes, over the limit of ${max}`);
    const buf = Buffer.alloc(st.size);
    let at = 0;
    while (at < buf.length) {
      const n = readSync(fd, buf, at, buf.length - at, at);
      if (n === 0) break;
      at += n;
    }
    return buf.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/** Fields of a JSON body that never change a reply: who asks and their own notes (README "Matching"). */
const IGNORED_FIELDS = new Set(['user', 'metadata', 'safety_identifier', 'prompt_cache_key']);

/** What a request body is matched on (the same when recorded and when replayed). */
export function bodyShape(contentType: string | undefined, body: Buffer): BodyShape | undefined {
  if (!body.length) return undefined;
  const ct = (contentType ?? '').toLowerCase();
  if (ct.includes('json')) {
    try {
      const value = JSON.parse(body.toString('utf8')) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value))
        return {
          json: Object.fromEntries(Object.entries(value).filter(([k]) => !IGNORED_FIELDS.has(k))),
        };
    } catch {
      // not JSON after all: matched on its bytes
    }
  }
  if (ct.startsWith('multipart/form-data')) {
    const form = formShape(ct, body);
    if (form) return { form };
  }
  return { sha256: sha256(body) };
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** A multipart form's fields and files (name, size, digest): independent of its boundary. */
function formShape(contentType: string, body: Buffer): BodyShape['form'] | undefined {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary) return undefined;
  const fields: Record<string, string[]> = {};
  const files: NonNullable<BodyShape['form']>['files'] = {};
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) return undefined;
    const part = body.subarray(start + 2, next - 2); // after CRLF, before the CRLF ending the part
    const headEnd = part.indexOf('\r\n\r\n');
    if (headEnd < 0) return undefined;
    const head = part.subarray(0, headEnd).toString('utf8');
    const content = part.subarray(headEnd + 4);
    const name = /name="([^"]*)"/i.exec(head)?.[1] ?? '';
    const filename = /filename="([^"]*)"/i.exec(head)?.[1];
    if (/filename=/i.test(head)) (files[name] ??= []).push({ filename, size: content.length, sha256: sha256(content) });
    else (fields[name] ??= []).push(content.toString('utf8'));
    at = next;
  }
  return { fields, files };
}
