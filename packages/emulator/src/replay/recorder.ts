// `svc emulator record`'s proxy: listens on loopback, forwards every request and WebSocket session to the upstream
// API with the user's key (sent there and nowhere else: no redirect is followed, every request goes to that one
// origin), and writes each exchange to a fixture (fixture.ts) with credentials, cookies and keys removed and audio
// kept as files beside it. Local clients authenticate with a key of this recorder's own (printed at start), so the
// user's key never leaves this process except to the upstream.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import { request as httpRequest, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { ERROR_CODES } from '../core/errors.js';
import { isCredentialHeader, redactRecorded } from '../core/redact.js';
import {
  FIXTURE_VERSION,
  assetDir,
  bodyShape,
  type Exchange,
  type FixtureDocument,
  type HttpExchange,
  type Payload,
  type RecordedRequest,
  type TimedPiece,
  type WsEvent,
  type WsExchange,
} from './fixture.js';
import { makeDirs } from 'svc-formats/make-dirs';

export interface RecorderOptions {
  /** the API's base URL, as the user typed it */
  upstream: string;
  /** the user's key: sent to the upstream only */
  key: string;
  /** the fixture file */
  out: string;
  host?: string;
  port?: number;
  /** writes the fixture's text (the CLI's atomic writer); default: a temporary file renamed over `out` */
  save?: (text: string) => Promise<void>;
  /** told when the fixture could not be written (close() then throws that error too) */
  onSaveError?: (err: Error) => void;
}

export interface Recorder {
  url: string;
  wsUrl: string;
  /** the key local clients use with the recorder */
  localKey: string;
  /** exchanges written so far */
  count(): number;
  close(): Promise<void>;
}

/** Largest request body forwarded (413 above): uploads are kept in memory to be matched later. */
const MAX_REQUEST_BODY = 256 * 1024 * 1024;
/** Hop-by-hop headers and those the proxy sets itself. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'host',
  'te',
  'trailer',
  'proxy-connection',
  'accept-encoding',
  'content-length',
]);
/** Reply headers that say nothing about the reply (kept out of the fixture). */
const VOLATILE = new Set([
  'date',
  'server',
  'etag',
  'age',
  'via',
  'alt-svc',
  'x-served-by',
  'cf-ray',
  'nel',
  'report-to',
]);
/** base64 audio inside JSON text (`"audio"`, `"delta"`, `"b64_json"` strings of 256 characters or more) */
const BASE64_AUDIO = /("(?:audio|delta|data)"\s*:\s*")([A-Za-z0-9+/]{256,}={0,2})"/g;

export async function startRecorder(opts: RecorderOptions): Promise<Recorder> {
  const upstream = new URL(opts.upstream);
  const localKey = `svc-rec-${randomBytes(16).toString('hex')}`;
  const book = new FixtureBook(opts, [opts.key, localKey]);
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    if (!localAuth(req, localKey)) return refuse(res, 401, 'The recorder wants the key it printed at start');
    forward(req, res, upstream, opts.key, book).catch((err: Error) => {
      if (res.headersSent || res.destroyed) return void res.destroy();
      if (err instanceof BodyTooLarge) return refuse(res, 413, err.message);
      refuse(res, 502, `the upstream could not be reached: ${err.message}`);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('error', () => s.destroy());
    s.on('close', () => sockets.delete(s));
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 16 * 1024 * 1024 });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const clientSecret = /svc-client-secret\./.test(String(req.headers['sec-websocket-protocol'] ?? ''));
    if (!clientSecret && !localAuth(req, localKey)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    proxySession(req, socket, head, wss, upstream, clientSecret ? undefined : opts.key, book);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  await book.save();
  if (book.failure) {
    await new Promise<void>((r) => server.close(() => r()));
    throw book.failure;
  }
  return {
    url: `http://${host}:${addr.port}`,
    wsUrl: `ws://${host}:${addr.port}`,
    localKey,
    count: () => book.doc.exchanges.length,
    async close() {
      for (const c of wss.clients) c.close(1001, 'the recorder stopped');
      await new Promise<void>((r) => setTimeout(r, 50));
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      await book.settled();
      await book.save();
      if (book.failure) throw book.failure;
    },
  };
}

function localAuth(req: IncomingMessage, localKey: string): boolean {
  const given = Buffer.from(/^Bearer\s+(\S+)/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '');
  const want = Buffer.from(localKey);
  return given.length === want.length && timingSafeEqual(given, want);
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ code: ERROR_CODES[status] ?? 'bad-gateway', error: message }));
}

class BodyTooLarge extends Error {}

/** The fixture being written: exchanges in the order they began, files beside it, saved after each exchange. */
class FixtureBook {
  readonly doc: FixtureDocument;
  private readonly dir: string;
  private nextId = 1;
  private saving: Promise<void> = Promise.resolve();
  private readonly open = new Set<Promise<void>>();

  constructor(
    private readonly opts: RecorderOptions,
    private readonly secrets: string[],
  ) {
    this.doc = {
      version: FIXTURE_VERSION,
      upstream: new URL(opts.upstream).origin,
      recorded_at: new Date().toISOString(),
      exchanges: [],
    };
    this.dir = assetDir(opts.out);
  }

  /**
   * Reserves an exchange's place (its id orders the fixture) until `done` (kept) or `cancel` (the upstream was never
   * reached: nothing of it is kept).
   */
  begin<E extends Exchange>(make: (id: number) => E): { ex: E; done: () => void; cancel: () => void } {
    const ex = make(this.nextId++);
    let finish = () => {};
    const settled = new Promise<void>((r) => (finish = r));
    this.open.add(settled);
    let ended = false;
    const end = (keep: boolean) => {
      if (ended) return;
      ended = true;
      this.open.delete(settled);
      finish();
      if (!keep) return;
      this.doc.exchanges.push(ex);
      this.doc.exchanges.sort((a, b) => a.id - b.id);
      void this.save();
    };
    return { ex, done: () => end(true), cancel: () => end(false) };
  }

  async settled(): Promise<void> {
    await Promise.all([...this.open]);
  }

  /** the first failure to write the fixture */
  failure: Error | undefined;

  save(): Promise<void> {
    const text = `${JSON.stringify(this.doc, null, 1)}\n`;
    this.saving = this.saving
      .then(() => (this.opts.save ? this.opts.save(text) : saveBeside(this.opts.out, text)))
      .catch((err: Error) => {
        if (!this.failure) this.opts.onSaveError?.(err);
        this.failure ??= err;
      });
    return this.saving;
  }

  scrub(text: string): string {
    return redactRecorded(text, this.secrets);
  }

  /** Appends bytes to a file beside the fixture; the range they occupy. */
  keep(file: string, bytes: Buffer, sizes: Map<string, number>): { file: string; offset: number; length: number } {
    makeDirs(this.dir, 0o700);
    const offset = sizes.get(file) ?? 0;
    appendFileSync(`${this.dir}/${file}`, bytes, { mode: 0o600 });
    sizes.set(file, offset + bytes.length);
    return { file, offset, length: bytes.length };
  }

  /** Text as kept: credentials removed, base64 audio moved to `file`. */
  textPayload(text: string, file: string, sizes: Map<string, number>): Payload {
    const scrubbed = this.scrub(text);
    const audio: (ReturnType<FixtureBook['keep']> & { at: number })[] = [];
    let out = '';
    let last = 0;
    for (const m of scrubbed.matchAll(BASE64_AUDIO)) {
      const at = m.index + m[1]!.length;
      out += scrubbed.slice(last, at);
      audio.push({ ...this.keep(file, Buffer.from(m[2]!, 'base64'), sizes), at: out.length });
      last = at + m[2]!.length;
    }
    out += scrubbed.slice(last);
    return audio.length ? { text: out, audio } : { text: out };
  }
}

async function saveBeside(target: string, text: string): Promise<void> {
  const temp = `${target}.${process.pid}.part`;
  writeFileSync(temp, text, { mode: 0o600 });
  renameSync(temp, target);
}

/** Request headers kept in the fixture: no credential, no hop-by-hop header, secrets in the rest removed. */
function keptHeaders(headers: IncomingMessage['headers'], book: FixtureBook): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || isCredentialHeader(name) || HOP.has(name) || VOLATILE.has(name)) continue;
    if (name === 'sec-websocket-protocol' || name.startsWith('sec-websocket-')) continue;
    out[name] = book.scrub(Array.isArray(value) ? value.join(', ') : value);
  }
  return out;
}

function queryOf(url: URL): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of url.searchParams) (out[k] ??= []).push(v);
  return out;
}

function upstreamUrl(upstream: URL, reqUrl: string | undefined, ws = false): URL {
  const local = new URL(reqUrl ?? '/', 'http://recorder');
  const target = new URL(upstream.href);
  target.pathname = `${upstream.pathname.replace(/\/$/, '')}${local.pathname}`;
  target.search = local.search;
  if (ws) target.protocol = upstream.protocol === 'https:' ? 'wss:' : 'ws:';
  return target;
}

/** Forwarded request headers: the client's, less credentials and hop-by-hop ones, with the user's key. */
function forwardedHeaders(req: IncomingMessage, key: string | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !HOP.has(name) && name !== 'authorization' && !name.startsWith('sec-websocket-'))
      out[name] = value;
  if (key) out.authorization = `Bearer ${key}`;
  return out;
}

/** A body whole; over MAX_REQUEST_BODY refused at once (the rest is read and dropped, so the 413 can be answered). */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= MAX_REQUEST_BODY) return void chunks.push(c);
      req.off('data', onData);
      req.resume();
      reject(new BodyTooLarge(`Request body exceeds the limit of ${MAX_REQUEST_BODY} bytes`));
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function recordedRequest(req: IncomingMessage, method: string, body: Buffer | undefined, book: FixtureBook) {
  const url = new URL(req.url ?? '/', 'http://recorder');
  const shape = body ? bodyShape(req.headers['content-type'], body) : undefined;
  const request: RecordedRequest = {
    method,
    path: url.pathname,
    query: queryOf(url),
    headers: keptHeaders(req.headers, book),
  };
  if (shape) request.body = JSON.parse(book.scrub(JSON.stringify(shape))) as RecordedRequest['body'];
  return request;
}

const TEXTUAL = /json|text\/|event-stream|xml|javascript|x-www-form-urlencoded/i;
const EXTENSIONS: [RegExp, string][] = [
  [/mpeg|mp3/, 'mp3'],
  [/wav/, 'wav'],
  [/ogg|opus/, 'ogg'],
  [/flac/, 'flac'],
  [/basic|mulaw|ulaw/, 'ulaw'],
  [/alaw/, 'alaw'],
  [/pcm|L16/i, 'pcm'],
  [/png/, 'png'],
  [/mp4/, 'mp4'],
  [/zip/, 'zip'],
];
const extensionOf = (contentType: string) => EXTENSIONS.find(([re]) => re.test(contentType))?.[1] ?? 'bin';

/** One HTTP exchange: forwarded, its reply streamed back to the client and kept piece by piece with its timing. */
async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  upstream: URL,
  key: string,
  book: FixtureBook,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const body = await readBody(req);
  const target = upstreamUrl(upstream, req.url);
  const { ex, done, cancel } = book.begin(
    (id): HttpExchange => ({
      kind: 'http',
      id,
      request: recordedRequest(req, method, body, book),
      reply: { status: 0, headers: {}, latency_ms: 0, body: [] },
    }),
  );
  const sent = performance.now();
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const up = send(target, { method, headers: { ...forwardedHeaders(req, key), 'content-length': body.length } });
  // a client gone before its reply ended (it gave up, or the recorder stops and closes it): the upstream request ends
  // too, so that a silent upstream holds neither a socket nor the recorder's Ctrl-C
  res.once('close', () => {
    if (!res.writableFinished) up.destroy();
  });
  const reply = await new Promise<IncomingMessage>((resolve, reject) => {
    up.once('response', resolve);
    up.once('error', reject);
    up.end(body);
  }).catch((err: Error) => {
    cancel();
    throw err;
  });
  const headersAt = performance.now();
  ex.reply.status = reply.statusCode ?? 502;
  ex.reply.latency_ms = Math.round(headersAt - sent);
  const outHeaders: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(reply.headers)) {
    if (value === undefined || HOP.has(name)) continue;
    outHeaders[name] = value;
    if (!isCredentialHeader(name) && !VOLATILE.has(name))
      ex.reply.headers[name] = book.scrub(Array.isArray(value) ? value.join(', ') : value);
  }
  res.writeHead(ex.reply.status, outHeaders);
  res.flushHeaders();
  const contentType = String(reply.headers['content-type'] ?? '');
  const pieces = new BodyPieces(ex.id, contentType, book, headersAt);
  try {
    for await (const chunk of reply as AsyncIterable<Buffer>) {
      pieces.add(chunk);
      if (!res.write(chunk)) await new Promise<void>((r) => res.once('drain', () => r()));
    }
    res.end();
  } finally {
    ex.reply.body = pieces.end();
    done();
  }
}

/** A reply body as timed pieces: text cut after its last newline (SSE events, lines), binary in a file. */
class BodyPieces {
  private readonly pieces: TimedPiece[] = [];
  private readonly textual: boolean;
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private readonly sizes = new Map<string, number>();

  constructor(
    private readonly id: number,
    private readonly contentType: string,
    private readonly book: FixtureBook,
    private readonly start: number,
  ) {
    this.textual = TEXTUAL.test(contentType);
  }

  private now(): number {
    return Math.round(performance.now() - this.start);
  }

  add(chunk: Buffer): void {
    const t = this.now();
    if (!this.textual) {
      const last = this.pieces.at(-1);
      const range = this.book.keep(`${this.id}-reply.${extensionOf(this.contentType)}`, chunk, this.sizes);
      // chunks close together are one piece (a download is not kept as thousands of 64 KiB entries)
      if (last && 'file' in last.data && t - last.t < 20) last.data.length += range.length;
      else this.pieces.push({ t, data: range });
      return;
    }
    this.pending += this.decoder.write(chunk);
    const cut = this.pending.lastIndexOf('\n');
    if (cut < 0) return;
    this.push(t, this.pending.slice(0, cut + 1));
    this.pending = this.pending.slice(cut + 1);
  }

  private push(t: number, text: string): void {
    if (text) this.pieces.push({ t, data: this.book.textPayload(text, `${this.id}-reply.audio`, this.sizes) });
  }

  end(): TimedPiece[] {
    if (this.textual) this.push(this.now(), this.pending + this.decoder.end());
    return this.pieces;
  }
}

/** One WebSocket session: opened upstream first, then every message relayed and kept, each way, with its time. */
function proxySession(
  req: IncomingMessage,
  socket: Socket,
  head: Buffer,
  wss: WebSocketServer,
  upstream: URL,
  key: string | undefined,
  book: FixtureBook,
): void {
  const target = upstreamUrl(upstream, req.url, true);
  const protocols = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const { ex, done, cancel } = book.begin(
    (id): WsExchange => ({
      kind: 'websocket',
      id,
      request: recordedRequest(req, 'WS', undefined, book),
      reply: { status: 0, headers: {} },
      events: [],
    }),
  );
  const up = new WebSocket(target, protocols, {
    headers: forwardedHeaders(req, key) as Record<string, string>,
    perMessageDeflate: false,
    maxPayload: 16 * 1024 * 1024,
  });
  up.on('unexpected-response', (_r, reply) => {
    ex.reply.status = reply.statusCode ?? 502;
    readBody(reply).then(
      (b) => {
        ex.reply.body = book.textPayload(b.toString('utf8'), `${ex.id}-refusal.audio`, new Map());
        socket.write(
          `HTTP/1.1 ${ex.reply.status} Refused\r\ncontent-type: ${reply.headers['content-type'] ?? 'text/plain'}\r\n` +
            `content-length: ${b.length}\r\nconnection: close\r\n\r\n`,
        );
        socket.end(b);
        done();
      },
      () => (socket.destroy(), done()),
    );
  });
  up.on('error', () => {
    if (ex.reply.status) return;
    socket.destroy();
    cancel();
  });
  // a client gone before the upstream answered: the upstream session is not opened for nobody
  socket.once('close', () => {
    if (up.readyState === WebSocket.CONNECTING) up.terminate();
  });
  up.on('upgrade', (reply) => {
    ex.reply.status = 101;
    for (const [name, value] of Object.entries(reply.headers))
      if (value !== undefined && !HOP.has(name) && !name.startsWith('sec-websocket-') && !VOLATILE.has(name))
        ex.reply.headers[name] = book.scrub(String(value));
  });
  up.on('open', () => {
    wss.handleUpgrade(req, socket, head, (client) => relay(client, up, ex, book, done));
  });
}

function relay(client: WebSocket, up: WebSocket, ex: WsExchange, book: FixtureBook, done: () => void): void {
  const start = performance.now();
  const sizes = new Map<string, number>();
  const keep = (from: 'client' | 'server', data: RawData, binary: boolean) => {
    const t = Math.round(performance.now() - start);
    const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
    const file = `${ex.id}-${from}.${binary ? 'bin' : 'audio'}`;
    if (binary) return ex.events.push({ t, from, type: 'binary', binary: true, data: book.keep(file, bytes, sizes) });
    const text = bytes.toString('utf8');
    let type = 'text';
    try {
      type = String((JSON.parse(text) as { type?: unknown }).type ?? 'text');
    } catch {
      // a text frame that is not JSON is kept as it is
    }
    const event: WsEvent = { t, from, type, data: book.textPayload(text, file, sizes) };
    ex.events.push(event);
  };
  client.on('error', () => {});
  client.on('message', (data, binary) => {
    keep('client', data, binary);
    if (up.readyState === WebSocket.OPEN) up.send(data, { binary });
  });
  up.on('message', (data, binary) => {
    keep('server', data, binary);
    if (client.readyState === WebSocket.OPEN) client.send(data, { binary });
  });
  let ended = false;
  const end = (from: 'client' | 'server', code: number, reason: Buffer) => {
    if (ended) return;
    ended = true;
    ex.close = { from, code, reason: reason.toString('utf8'), t: Math.round(performance.now() - start) };
    const other = from === 'client' ? up : client;
    const sendable = code >= 1000 && code < 5000 && code !== 1005 && code !== 1006;
    if (other.readyState === WebSocket.OPEN) other.close(sendable ? code : 1000, reason.toString('utf8'));
    done();
  };
  client.on('close', (code, reason) => end('client', code, reason));
  up.on('close', (code, reason) => end('server', code, reason));
}
