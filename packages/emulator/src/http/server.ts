// The local emulator's HTTP + WebSocket server: request ids, the request log, fault injection, auth, routing.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { hasAgentAccess, redactedKey, type KeyRecord } from '../state/auth.js';
import { Backend, type EmulatorSettings } from '../state/backend.js';
import type { LoggedRequest } from '../state/request-log.js';
import type { FaultList, Fault } from '../state/faults.js';
import { estimatedTokens, type RateLimit } from '../state/rate-limit.js';
import { UpgradeRecord } from './ws-log.js';
import { MAX_JSON_BODY, Router, parseJsonBody, type EmuRequest, type EmuResponse, type SseWriter } from './router.js';
import { ERROR_CODES, HttpError } from '../core/errors.js';
import { registerAdminRoutes } from './admin.js';
import { loadApiDocument } from '../core/api-document.js';
import type { ReplyRecord } from '../core/contract.js';
import { applyFixtures, seedFixtures, type Fixtures } from '../state/fixtures.js';
import { registerAllRoutes } from '../routes/index.js';
import { registerCollections } from '../text/search-index.js';
import { redactHeaders, redactQuery } from '../core/redact.js';
import { handleUnknown, requestChecker, requestCheckerNow, type UnknownFieldPolicy } from './request-check.js';
import { StateStore } from '../state/state.js';
import { allowedHostNames, webRefusal } from './web-guard.js';
import { bodyShape, type HttpExchange, type WsExchange } from '../replay/fixture.js';
import { Replayer, type ReplayOptions } from '../replay/replayer.js';

export interface EmulatorOptions {
  port?: number;
  host?: string;
  /** persist state here; in memory when absent */
  stateDir?: string;
  tokenDelayMs?: number;
  deferredDelayMs?: number;
  latencyMs?: number;
  faults?: Fault[];
  /** the key always accepted (default: the built-in emulator key) */
  defaultKey?: string;
  /** no log lines on stderr */
  quietLog?: boolean;
  /** extra settings for route modules */
  settings?: Partial<EmulatorSettings>;
  /** required (Bearer, or x-emulator-admin-token) on /_emulator/* except the health route; set it off loopback */
  adminToken?: string;
  /** seed the state with these (after listening; again after every reset) — see fixtures.ts */
  fixtures?: { fixtures: Fixtures; dir: string };
  /** `--seed N`: ids, tokens and generated content repeat exactly across runs from the same state */
  seed?: number;
  /** document collections for POST /v1/documents/search: collection id → file or folder path(s) */
  collections?: Record<string, string | string[]>;
  /** told every reply once it has gone (status, content type, body; WebSocket opens and server events) */
  onReply?: (reply: ReplyRecord) => void;
  /** `--rate-limit RPM[,TPM]`: the limit of every key without one of its own */
  rateLimit?: RateLimit;
  /** `--strict`: a field the API document does not describe is 400 (default: a warning header and a log note) */
  strict?: boolean;
  /** `--replay FILE`: matching requests get the recorded replies (replay/replayer.ts) */
  replay?: ReplayOptions;
}

export interface Emulator {
  url: string;
  wsUrl: string;
  port: number;
  defaultKey: string;
  core: Backend;
  faults: FaultList;
  addKey(partial?: Partial<KeyRecord>): KeyRecord;
  close(): Promise<void>;
}

const MAX_LOGGED_BODY = 256 * 1024;
/** largest WebSocket message accepted (the connection closes with 1009 above) */
const MAX_WS_MESSAGE = 16 * 1024 * 1024;

export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const { store, core } = newBackend(opts);
  const router = new Router();
  const replayer = opts.replay ? new Replayer(opts.replay) : undefined;
  registerAdminRoutes(router);
  registerAllRoutes(router);
  router.get('/openapi.json', async (_req, res) => res.json(200, await loadApiDocument()), { auth: false });

  const sockets = new Set<Socket>();
  const swept = store.sweepOrphans(blobOwners(core));
  if (swept.removed && !opts.quietLog)
    process.stderr.write(
      `emulator: removed ${swept.removed} orphan blob(s) (${swept.bytes} bytes) left by an earlier crash\n`,
    );
  const server = createServer((req, res) => {
    commitBeforeReplying(core, res);
    if (opts.onReply) recordReply(req, res, opts.onReply);
    handle(router, core, req, res, replayer).catch((err) => {
      if (!res.headersSent) sendError(res, 500, `emulator failure: ${(err as Error).message}`);
      else res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    // a peer's reset is that connection's end, never the server's (http's own handler goes at an upgrade)
    s.on('error', () => s.destroy());
    s.on('close', () => sockets.delete(s));
  });
  const wss = acceptUpgrades(server, router, core, opts.onReply, replayer);
  // made before the first request (~20 ms), so WebSocket events are checked from the first one
  await requestChecker();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      // once listening, an error (EMFILE on accept, …) is reported and the server keeps serving
      server.on('error', (err) => process.stderr.write(`emulator: ${err.message}\n`));
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = clientHost(addr);
  core.url = `http://${host}:${addr.port}`;
  core.wsUrl = `ws://${host}:${addr.port}`;
  if (opts.fixtures) {
    const { fixtures, dir } = opts.fixtures;
    core.fixtures = () => applyFixtures(core, fixtures, dir);
    try {
      await seedFixtures(core, fixtures, dir);
    } catch (err) {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      store.close();
      throw err;
    }
  }

  return {
    url: core.url,
    wsUrl: core.wsUrl,
    port: addr.port,
    defaultKey: core.defaultKey,
    core,
    faults: core.faults,
    addKey: (p) => core.addKey(p),
    async close() {
      core.emit('close');
      for (const c of wss.clients) c.terminate();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      store.close();
    },
  };
}

/** The state (persisted in opts.stateDir, else in memory) and the backend on it, with the options' settings. */
function newBackend(opts: EmulatorOptions): { store: StateStore; core: Backend } {
  const store = new StateStore(opts.stateDir);
  const core = new Backend(
    store,
    {
      tokenDelayMs: opts.tokenDelayMs,
      deferredDelayMs: opts.deferredDelayMs,
      latencyMs: opts.latencyMs,
      ...opts.settings,
    },
    opts.defaultKey,
    opts.seed,
  );
  core.adminToken = opts.adminToken;
  core.hostNames = allowedHostNames(opts.host ?? '127.0.0.1');
  for (const f of opts.faults ?? []) core.faults.add(f);
  core.rateLimits.limit = opts.rateLimit;
  core.strict = !!opts.strict;
  if (opts.collections) registerCollections(core, opts.collections);
  return { store, core };
}

/** WebSocket upgrades of the server go to the router's WebSocket routes. */
function acceptUpgrades(
  server: Server,
  router: Router,
  core: Backend,
  onReply?: (reply: ReplyRecord) => void,
  replayer?: Replayer,
): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_WS_MESSAGE });
  wss.on('error', () => {});
  // the 101 carries the request id like every HTTP reply (the client's call log keeps it)
  wss.on('headers', (headers, req) => {
    const id = upgradeIds.get(req);
    if (id) headers.push(`x-request-id: ${id}`, 'x-svc-emulator: 1');
  });
  server.on('upgrade', (req, socket, head) => {
    handleUpgrade(router, core, wss, req, socket as Socket, head, onReply, replayer).catch(() => socket.destroy());
  });
  return wss;
}

function adminTokenMatches(req: IncomingMessage, token: string): boolean {
  const given = String(
    req.headers['x-emulator-admin-token'] ?? /^Bearer\s+(\S+)/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '',
  );
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether an address only this machine can reach (no admin token needed there). */
/**
 * The host of the URLs the emulator prints: the address it listens on, but loopback for a wildcard address
 * (`--host 0.0.0.0` or `::`), which is no address a client can use (and which svc refuses as plain http off loopback).
 */
function clientHost(addr: AddressInfo): string {
  if (addr.address === '0.0.0.0') return '127.0.0.1';
  if (addr.address === '::') return '[::1]';
  return addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host) || host === '::ffff:127.0.0.1';
}

/** Blob names each kind's records refer to (the rest are orphans). */
function blobOwners(core: Backend): Record<string, Set<string>> {
  const names = (collection: string, field: string) =>
    new Set(
      [...core.store.collection<Record<string, unknown>>(collection).values()]
        .map((r) => r[field])
        .filter((v): v is string => typeof v === 'string'),
    );
  return {
    files: names('files', 'blob'),
    skills: names('skills', 'blob'),
    'custom-voices': names('custom_voices', 'voice_id'),
  };
}

/**
 * A 2xx means durable: whatever a handler changed is committed (fsync'd, renamed into place) before the status
 * line goes out, on every path that answers (JSON, streams, blobs, errors).
 */
function commitBeforeReplying(core: Backend, res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    try {
      core.store.flush();
    } catch (err) {
      process.stderr.write(`emulator: could not save the state: ${(err as Error).message}\n`);
      if (status < 400) status = 500;
    }
    return writeHead(status, ...rest);
  }) as typeof res.writeHead;
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (status === 422) {
    res.writeHead(422, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    res.end(message);
    return;
  }
  const body = JSON.stringify({ code: ERROR_CODES[status] ?? 'unknown', error: message });
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

function makeResponse(res: ServerResponse, fault: Fault | undefined, core: Backend, requestId: string): EmuResponse {
  return {
    raw: res,
    json(status, body, headers = {}) {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    },
    text(status, body, contentType = 'text/plain; charset=utf-8') {
      res.writeHead(status, { 'content-type': contentType });
      res.end(body);
    },
    empty(status) {
      res.writeHead(status);
      res.end();
    },
    error(status, message, headers) {
      sendError(res, status, message, headers);
    },
    sse(): SseWriter {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      res.flushHeaders();
      let sent = 0;
      let closed = false;
      // settles when the last frame written has been handed to the socket (res.write's callback)
      let lastWritten = Promise.resolve();
      res.on('close', () => {
        closed = true;
      });
      const dropAfter = fault?.kind === 'drop' ? (fault.afterEvents ?? 0) : undefined;
      const writer: SseWriter = {
        get closed() {
          return closed;
        },
        async send(data, event) {
          if (closed) return false;
          if (dropAfter !== undefined && sent >= dropAfter) {
            writer.drop();
            return false;
          }
          const frame =
            `${event ? `event: ${event}\n` : ''}data: ` +
            `${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
          sent++;
          // Tests observe when each event left the emulator (e.g. to prove the CLI streams).
          core.emit('sse', { requestId, index: sent - 1, data });
          let written = true;
          lastWritten = new Promise<void>((r) => {
            written = res.write(frame, () => r());
          });
          if (!written) await new Promise<void>((r) => res.once('drain', () => r()));
          return !closed;
        },
        done() {
          if (closed) return;
          res.end('data: [DONE]\n\n');
        },
        drop() {
          // End the TCP connection without ending the chunked body (the client sees a connection lost mid-stream),
          // once every frame written has reached the socket: ended at once, Node 24.22 dropped the frames still
          // corked in the response (the client got the headers and no event).
          closed = true;
          const socket = res.socket;
          void lastWritten.then(() => {
            socket?.end();
            setTimeout(() => socket?.destroy(), 200).unref();
          });
        },
      };
      return writer;
    },
  };
}

function makeRequest(
  req: IncomingMessage,
  path: string,
  url: URL,
  requestId: string,
  params: Record<string, string>,
  log?: { body?: string; bytes?: number },
  redact: (text: string) => string = (t) => t,
  unknownFields?: UnknownFieldPolicy,
): EmuRequest {
  let cached: Promise<Buffer> | undefined;
  const body = (limit = 64 * 1024 * 1024) => {
    cached ??= new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > limit) {
          reject(new HttpError(413, `Request body exceeds the limit of ${limit} bytes`));
          req.resume();
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => {
        const buf = Buffer.concat(chunks);
        if (log) log.bytes = buf.length;
        if (log && buf.length <= MAX_LOGGED_BODY) log.body = redact(buf.toString('utf8'));
        resolve(buf);
      });
      req.on('error', reject);
    });
    return cached;
  };
  return {
    method: req.method ?? 'GET',
    path,
    params,
    query: url.searchParams,
    headers: req.headers,
    raw: req,
    requestId,
    body,
    async json<T>(opts: { array?: boolean } = {}) {
      const ct = String(req.headers['content-type'] ?? '');
      // a shape some SDK sends that the document does not (multipart images.edit) is named, never guessed at
      if (!ct.includes('json'))
        throw new HttpError(
          415,
          `Expected request with \`Content-Type: application/json\`` +
            (ct ? ` (got ${safeType(ct)}: the API document describes a JSON body for ${req.method} ${path})` : ''),
        );
      const value = parseJsonBody(await body(MAX_JSON_BODY), opts.array ?? false);
      // the document's rules before the route's own
      if (unknownFields) {
        const unknown = (await requestChecker()).body(req.method ?? 'GET', path, value);
        handleUnknown(unknown, 'field', unknownFields);
      }
      return value as T;
    },
    checkForm(parts) {
      const checker = requestCheckerNow();
      if (unknownFields && checker)
        handleUnknown(checker.form(req.method ?? 'POST', path, parts), 'field', unknownFields);
    },
    checkEvent(event) {
      const checker = requestCheckerNow();
      try {
        if (unknownFields && checker) handleUnknown(checker.wsEvent(path, event), 'field', unknownFields);
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
  };
}

type AuthResult = { ok: true; key: KeyRecord } | { ok: false; status: number; message: string };

function authenticate(
  core: Backend,
  header: string | undefined,
  path: string,
  endpoint: string,
  agentAccess: boolean,
  subprotocolSecret?: string,
): AuthResult {
  let key: KeyRecord | undefined;
  if (subprotocolSecret !== undefined || (header && /^Bearer\s+svc-cs-/.test(header))) {
    const value = subprotocolSecret ?? header!.replace(/^Bearer\s+/, '');
    const secret = core.store
      .collection<{ value: string; expires_at: number; key: string }>('client_secrets')
      .get(value);
    if (!secret || secret.expires_at < core.nowSec())
      return { ok: false, status: 401, message: 'The client secret is invalid or has expired' };
    key = core.keys().get(secret.key);
    if (!key) return { ok: false, status: 401, message: 'The client secret is invalid or has expired' };
  } else {
    if (!header)
      return {
        ok: false,
        status: 401,
        message: 'Missing Authorization header: expected `Authorization: Bearer <API_KEY>`',
      };
    const m = /^Bearer\s+(\S+)\s*$/.exec(header);
    if (!m) return { ok: false, status: 401, message: 'Malformed Authorization header: expected `Bearer <API_KEY>`' };
    key = core.keys().get(m[1]!);
    if (!key)
      return {
        ok: false,
        status: 400,
        message: `Incorrect API key provided: ${redactedKey(m[1]!)}. Obtain an API key from the console.`,
      };
  }
  // The key endpoints report the blocked/disabled flags instead of refusing.
  const reportsFlags = path === '/v1/api-key' || path === '/v1/me';
  if (!reportsFlags) {
    if (key.team_blocked) return { ok: false, status: 403, message: 'The team of this API key is blocked' };
    if (key.api_key_blocked) return { ok: false, status: 403, message: 'This API key is blocked' };
    if (key.api_key_disabled) return { ok: false, status: 403, message: 'This API key is disabled' };
    if (!key.acls.includes('api-key:endpoint:*') && !key.acls.includes(`api-key:endpoint:${endpoint}`)) {
      return { ok: false, status: 403, message: `The API key is not authorized for the endpoint ${endpoint}` };
    }
    if (agentAccess && !hasAgentAccess(key))
      return { ok: false, status: 403, message: 'The API key does not have agent access' };
  }
  return { ok: true, key };
}

/** Query parameters for the request log; a repeated parameter keeps every value. */
function queryRecord(params: URLSearchParams): Record<string, string | string[]> {
  return Object.fromEntries(
    [...new Set(params.keys())].map((k) => {
      const all = params.getAll(k);
      return [k, all.length > 1 ? all : all[0]!];
    }),
  );
}

function endpointName(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return parts[1] ?? parts[0] ?? '';
}

/** The admin API, when the emulator has an admin token, wants it (health aside): false once refused. */
function adminAllowed(req: IncomingMessage, res: ServerResponse, core: Backend, path: string): boolean {
  if (!core.adminToken || path === '/_emulator/health' || adminTokenMatches(req, core.adminToken)) return true;
  req.resume();
  sendError(
    res,
    401,
    'The emulator admin API needs the admin token printed at start (Authorization: Bearer <token> or ' +
      'x-emulator-admin-token)',
  );
  return false;
}

async function handle(
  router: Router,
  core: Backend,
  req: IncomingMessage,
  res: ServerResponse,
  replayer?: Replayer,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://emulator');
  const path = url.pathname;
  const method = (req.method ?? 'GET').toUpperCase();
  const isAdmin = path.startsWith('/_emulator/');
  // admin calls (readiness polls, log reads) do not move the seeded request-id stream
  const requestId = isAdmin ? randomUUID() : core.uuid('request');
  // every reply says it is the emulator's, so a client's call log marks it (it costs nothing)
  res.setHeader('x-request-id', requestId);
  res.setHeader('x-svc-emulator', '1');
  const entry = isAdmin ? undefined : logHttpRequest(core, req, res, url, method, requestId);
  const refusal = webRefusal(req, method, isAdmin, core.hostNames);
  if (refusal) {
    req.resume();
    return sendError(res, refusal.status, refusal.message);
  }

  if (isAdmin && !adminAllowed(req, res, core, path)) return;
  let fault: Fault | undefined;
  if (!isAdmin) {
    const injected = await injectFault(core, req, res, method, path);
    if (injected.answered) return;
    fault = injected.fault;
  }

  const { route, params, otherMethods } = router.match(method, path);
  const unknownFields = isAdmin ? undefined : unknownFieldPolicy(core, res, entry);
  // under --replay a recording may answer (undefined: answered), else the request goes on to its route
  const replaying = replayer && unknownFields && route?.opts.auth !== false;
  const source = replaying ? await replayHttp(replayer, core, req, res, url, route, unknownFields) : req;
  if (!source) return;
  const emuReq = makeRequest(source, path, url, requestId, params, entry, (t) => core.redact(t), unknownFields);
  const emuRes = makeResponse(res, fault, core, requestId);
  if (!route) return noRoute(req, res, method, path, otherMethods);
  if (route.opts.auth !== false) {
    const auth = authenticate(
      core,
      req.headers.authorization,
      path,
      route.opts.endpoint ?? endpointName(path),
      !!route.opts.agentAccess,
    );
    if (!auth.ok) {
      req.resume();
      return sendError(res, auth.status, auth.message);
    }
    emuReq.key = auth.key;
    const verdict = core.rateLimits.admit(
      auth.key.key,
      auth.key.rate_limit,
      estimatedTokens(req.headers['content-length']),
      core.now(),
    );
    for (const [name, value] of Object.entries(verdict.headers)) res.setHeader(name, value);
    if (!verdict.ok) {
      req.resume();
      return sendError(res, 429, verdict.message);
    }
  }
  try {
    if (unknownFields)
      handleUnknown((await requestChecker()).query(method, path, url.searchParams), 'query parameter', unknownFields);
    await route.handler(emuReq, emuRes, core);
  } catch (err) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof HttpError) return sendError(res, err.status, err.message, err.headers);
    return sendError(res, 500, `emulator failure: ${(err as Error).message}`);
  }
}

/** No route: 405 naming the methods the path has, or 404. */
function noRoute(req: IncomingMessage, res: ServerResponse, method: string, path: string, otherMethods: string[]) {
  req.resume();
  if (otherMethods.length)
    return sendError(
      res,
      405,
      `Method ${method} is not allowed on ${path}; allowed: ${[...new Set(otherMethods)].join(', ')}`,
      { allow: [...new Set(otherMethods)].join(', ') },
    );
  return sendError(res, 404, `No such endpoint: ${method} ${path}`);
}

/** Largest request body read to be matched against the replay fixture (413 above). */
const MAX_REPLAYED_BODY = 64 * 1024 * 1024;

/**
 * `--replay`: the recorded reply of a matching request (after the key is checked), or under --replay-strict a 404
 * naming the closest recording. undefined once answered; else the request to route, its body (read to be matched)
 * handed on as a stream of its own.
 */
async function replayHttp(
  replayer: Replayer,
  core: Backend,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  route: ReturnType<Router['match']>['route'],
  unknownFields: UnknownFieldPolicy,
): Promise<IncomingMessage | undefined> {
  const method = (req.method ?? 'GET').toUpperCase();
  const path = url.pathname;
  if (!replayer.strict && !replayer.has(method, path)) return req;
  const endpoint = route?.opts.endpoint ?? endpointName(path);
  const auth = authenticate(core, req.headers.authorization, path, endpoint, !!route?.opts.agentAccess);
  if (!auth.ok) return void (req.resume(), sendError(res, auth.status, auth.message));
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_REPLAYED_BODY)
      return void sendError(res, 413, `Request body exceeds the limit of ${MAX_REPLAYED_BODY} bytes`);
    chunks.push(c);
  }
  const body = Buffer.concat(chunks);
  const asked = { method, path, query: url.searchParams, body: bodyShape(req.headers['content-type'], body) };
  const found = replayer.find<HttpExchange>(asked);
  if ('exchange' in found) {
    // the document's word on unknown fields holds for a replayed request too (recorded where the API ignored one)
    const checker = await requestChecker();
    try {
      handleUnknown(checker.query(method, path, url.searchParams), 'query parameter', unknownFields);
      if (asked.body?.json) handleUnknown(checker.body(method, path, asked.body.json), 'field', unknownFields);
    } catch (err) {
      if (err instanceof HttpError) return void sendError(res, err.status, err.message, err.headers);
      throw err;
    }
    return void (await replayer.answerHttp(res, found.exchange));
  }
  if (replayer.strict) return void sendError(res, 404, found.missing);
  const again = new PassThrough();
  again.end(body);
  return Object.assign(again, {
    headers: req.headers,
    method: req.method,
    url: req.url,
    socket: req.socket,
  }) as unknown as IncomingMessage;
}

/** Unknown fields of a WebSocket's client events: a 400 under --strict, else a note in its log entry, once per text. */
function eventFieldPolicy(core: Backend, entry: LoggedRequest): UnknownFieldPolicy {
  return {
    strict: core.strict,
    warn(text) {
      if (!entry.warnings?.includes(text)) (entry.warnings ??= []).push(text);
    },
  };
}

/** Unknown fields of this request: a 400 under --strict, else an `x-emulator-warning` header and a log note. */
function unknownFieldPolicy(core: Backend, res: ServerResponse, entry?: LoggedRequest): UnknownFieldPolicy {
  return {
    strict: core.strict,
    warn(text) {
      if (entry) (entry.warnings ??= []).push(text);
      if (res.headersSent) return;
      const before = res.getHeader('x-emulator-warning');
      res.setHeader('x-emulator-warning', before ? `${before}; ${text}` : text);
    },
  };
}

/** The request log's record of a request or an upgrade (a credential's presence, never the credential). */
function logRecord(core: Backend, req: IncomingMessage, url: URL, requestId: string, method: string) {
  return {
    id: requestId,
    time: Date.now(),
    method,
    path: url.pathname,
    query: redactQuery(queryRecord(url.searchParams), core.keys().keys()),
    headers: redactHeaders(req.headers, core.keys().keys()),
  };
}

/** The request in the request log; its status and duration are filled in when the reply has gone. */
function logHttpRequest(
  core: Backend,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  method: string,
  requestId: string,
): LoggedRequest {
  const started = performance.now();
  const entry = core.logRequest({
    ...logRecord(core, req, url, requestId, method),
    body: undefined,
    bytes: req.headers['content-length'] ? Number(req.headers['content-length']) : undefined,
  });
  res.once('close', () => {
    entry.status = res.statusCode;
    entry.duration_ms = Math.round((performance.now() - started) * 10) / 10;
  });
  return entry;
}

/**
 * The latency setting, then the fault planned for this request, if any: a status or a drop answers the request
 * (`answered`), a slow fault waits; a drop after N events is the response's to apply.
 */
async function injectFault(
  core: Backend,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  path: string,
): Promise<{ fault: Fault | undefined; answered: boolean }> {
  if (core.settings.latencyMs > 0) await core.sleep(core.settings.latencyMs);
  const fault = core.faults.take(method, path);
  if (fault) faultedReplies.add(res);
  if (fault?.kind === 'status') {
    const headers: Record<string, string> = {};
    if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
    req.resume();
    sendError(res, fault.status ?? 500, fault.message ?? `injected fault ${fault.status}`, headers);
    return { fault, answered: true };
  }
  if (fault?.kind === 'drop' && !fault.afterEvents) {
    req.resume();
    res.socket?.destroy();
    return { fault, answered: true };
  }
  if (fault?.kind === 'slow') await core.sleep(fault.delayMs ?? 1000);
  return { fault, answered: false };
}

/** The request id of each upgrade in progress, for its 101's headers. */
const upgradeIds = new WeakMap<IncomingMessage, string>();

async function handleUpgrade(
  router: Router,
  core: Backend,
  wss: WebSocketServer,
  req: IncomingMessage,
  socket: Socket,
  head: Buffer,
  onReply?: (reply: ReplyRecord) => void,
  replayer?: Replayer,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://emulator');
  const path = url.pathname;
  const requestId = core.uuid('request');
  upgradeIds.set(req, requestId);
  let faulted = false;
  const entry = core.logRequest(logRecord(core, req, url, requestId, 'WS'));
  const record = new UpgradeRecord(entry, socket);
  const reject = (status: number, message: string, extra = '') => {
    onReply?.({ kind: 'ws-open', path, status, faulted });
    record.end(status);
    const body = JSON.stringify({ code: ERROR_CODES[status] ?? 'unknown', error: message });
    socket.end(
      `HTTP/1.1 ${status} Error\r\ncontent-type: application/json\r\nx-request-id: ` +
        `${requestId}\r\n${extra}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  };
  // faults apply to an upgrade as method WS: a refused upgrade, a socket cut at once or after N server events, a slow
  // 101
  const fault = core.faults.take('WS', path);
  faulted = !!fault;
  if (fault?.kind === 'status')
    return reject(
      fault.status ?? 500,
      fault.message ?? `injected fault ${fault.status}`,
      fault.retryAfter !== undefined ? `retry-after: ${fault.retryAfter}\r\n` : '',
    );
  if (fault?.kind === 'drop' && !fault.afterEvents) return void socket.destroy();
  if (fault?.kind === 'slow') await core.sleep(fault.delayMs ?? 1000);
  const { route, params } = router.matchWs(path);
  if (!route) return reject(404, `No such WebSocket endpoint: ${path}`);
  // a session is state like a write: not for a Host the emulator does not listen under (DNS rebinding)
  const refusal = webRefusal(req, 'POST', false, core.hostNames);
  if (refusal) return reject(refusal.status, refusal.message);
  const csProto = clientSecretProtocol(req);
  const emuReq = makeRequest(req, path, url, requestId, params, undefined, undefined, eventFieldPolicy(core, entry));
  if (route.opts.auth !== false) {
    const auth = authenticate(
      core,
      req.headers.authorization,
      path,
      route.opts.endpoint ?? endpointName(path),
      !!route.opts.agentAccess,
      csProto?.slice('svc-client-secret.'.length),
    );
    if (!auth.ok) return reject(auth.status, auth.message);
    emuReq.key = auth.key;
  }
  const { recorded, refusal: replayRefusal } = recordedSession(replayer, path, url);
  if (replayRefusal) return reject(replayRefusal.status, replayRefusal.message);
  wss.handleUpgrade(req, socket, head, (ws) => {
    record.session(ws);

    // A malformed frame (invalid UTF-8 text, a reserved opcode or bits, a length over the limit) is an 'error' of
    // this socket: ws has already sent the close frame with its code (1007, 1002, 1009); without a listener the
    // error would end the whole process. ws ends the TCP connection once that close frame is out.
    ws.on('error', () => {});
    guardMessageListeners(ws);
    if (onReply) recordEvents(ws, path, onReply);
    if (fault?.kind === 'drop') cutAfter(ws, socket, fault.afterEvents!);
    const session = recorded ? replayer!.replaySession(ws, recorded) : route.handler(ws, emuReq, core);
    Promise.resolve(session).catch((err: Error) => {
      try {
        ws.send(JSON.stringify({ type: 'error', message: `emulator failure: ${err.message}` }));
        ws.close(1011, 'internal error');
      } catch {
        ws.terminate();
      }
    });
  });
}

/** The client secret a browser-style client offers as a subprotocol (`svc-client-secret.VALUE`). */
function clientSecretProtocol(req: IncomingMessage): string | undefined {
  return String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .find((p) => p.startsWith('svc-client-secret.'));
}

/** `--replay`: the recorded session of this upgrade, or a refusal (a recorded one, or --replay-strict's 404). */
function recordedSession(
  replayer: Replayer | undefined,
  path: string,
  url: URL,
): { recorded?: WsExchange; refusal?: { status: number; message: string } } {
  const found = replayer?.find<WsExchange>({ method: 'WS', path, query: url.searchParams });
  if (!found) return {};
  if ('missing' in found) return replayer!.strict ? { refusal: { status: 404, message: found.missing } } : {};
  const ex = found.exchange;
  if (ex.reply.status === 101) return { recorded: ex };
  return { refusal: { status: ex.reply.status, message: replayer!.refusalText(ex) } };
}

/** The connection is cut (no close frame) in place of the server's event number `n + 1`. */
/**
 * A drop after n events (n ≥ 1; 0 is refused before the upgrade): the client gets exactly n, then the connection
 * ends without a closing handshake (the client sees 1006). The TCP connection is ended once the n-th event has been
 * handed to the system, and destroyed when the client has closed its side (or after 5 s): destroyed at once (ws's
 * terminate()) while the client's own messages were still unread here, the system resets the connection, and the
 * client's system then discards events it had received but not yet read (under load, a realtime session's
 * transcript, event 8 of 12).
 */
function cutAfter(ws: WebSocket, socket: Socket, n: number): void {
  let sent = 0;
  const send = ws.send.bind(ws) as (data: unknown, options?: object, cb?: (err?: Error) => void) => void;
  type Done = (err?: Error) => void;
  ws.send = ((data: unknown, options?: object | Done, cb?: Done) => {
    const done = typeof options === 'function' ? (options as Done) : cb;
    const opts = typeof options === 'function' ? {} : (options ?? {});
    if (sent >= n) return; // cut (or being cut): nothing more goes out
    if (++sent < n) return send(data, opts, done);
    send(data, opts, (err) => {
      done?.(err);
      socket.end();
      // the client closes its side once it has read to the end; a client that does not is cut after 5 s
      const stop = setTimeout(() => ws.terminate(), 5000).unref();
      socket.once('close', () => clearTimeout(stop));
    });
  }) as WebSocket['send'];
}

/**
 * A throw in a 'message' listener would surface as an uncaught exception and end the whole emulator: report it
 * as an error event on that connection instead (a client's bad message never takes the server down).
 */
function guardMessageListeners(ws: WebSocket): void {
  const on = ws.on.bind(ws);
  ws.on = ((event: string, listener: (...args: unknown[]) => void) => {
    if (event !== 'message') return on(event as 'close', listener);
    return on('message', (...args: unknown[]) => {
      try {
        listener(...args);
      } catch (err) {
        if (ws.readyState === ws.OPEN)
          ws.send(JSON.stringify({ type: 'error', message: `invalid message: ${(err as Error).message}` }));
      }
    });
  }) as typeof ws.on;
}

const faultedReplies = new WeakSet<ServerResponse>();
/** bodies kept for onReply up to this size (larger: reported without a body) */
const MAX_RECORDED_BODY = 4 * 1024 * 1024;

/** Reports the reply to `onReply` when it has gone: status, content type and (up to a size) body. */
function recordReply(req: IncomingMessage, res: ServerResponse, onReply: (reply: ReplyRecord) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const keep = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const b =
      typeof chunk === 'string'
        ? Buffer.from(chunk, (encoding as BufferEncoding) || 'utf8')
        : Buffer.from(chunk as Uint8Array);
    size += b.length;
    if (size <= MAX_RECORDED_BODY) chunks.push(b);
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return write(chunk, ...rest);
  }) as typeof res.write;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return end(chunk, ...rest);
  }) as typeof res.end;
  res.once('finish', () =>
    onReply({
      kind: 'http',
      method: (req.method ?? 'GET').toUpperCase(),
      path: new URL(req.url ?? '/', 'http://emulator').pathname,
      status: res.statusCode,
      contentType: String(res.getHeader('content-type') ?? ''),
      body: size <= MAX_RECORDED_BODY ? Buffer.concat(chunks) : undefined,
      faulted: faultedReplies.has(res),
    }),
  );
}

/** Reports the WebSocket's open and every text frame the server sends to `onReply`. */
function recordEvents(ws: WebSocket, path: string, onReply: (reply: ReplyRecord) => void): void {
  onReply({ kind: 'ws-open', path, status: 101 });
  const send = ws.send.bind(ws) as (data: unknown, ...rest: unknown[]) => void;
  ws.send = ((data: unknown, ...rest: unknown[]) => {
    if (typeof data === 'string') onReply({ kind: 'ws-event', path, data });
    return send(data, ...rest);
  }) as WebSocket['send'];
}

/** a request's content type as a reply may quote it: its media type, printable, short */
function safeType(contentType: string): string {
  return contentType
    .split(';')[0]!
    .trim()
    .replace(/[^\x21-\x7e]/g, '?')
    .slice(0, 100);
}
