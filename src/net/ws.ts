// WebSocket helper on `ws` (imported lazily): bearer auth, JSON events, binary frames, close codes as errors.
import type WebSocket from 'ws';
import { ApiError, InterruptedError, NetworkError, ProtocolError, parseErrorBody } from '../core/errors.js';
import {
  backoffMs,
  buildUrl,
  isTlsTrustError,
  networkConfigured,
  parseRetryAfter,
  redactCredentials,
  sleep,
  type NetworkInputs,
  type Query,
} from './http.js';
import type { TlsSettings } from './network.js';
import { checkDestination } from './origin.js';

export interface WsOptions {
  baseUrl: string;
  path: string;
  query?: Query;
  apiKey?: string;
  /** browser-style auth through the subprotocol instead of the Authorization header */
  subprotocol?: string;
  userAgent: string;
  signal?: AbortSignal;
  trace?: (line: string) => void;
  handshakeTimeoutMs?: number;
  /** --timeout: the longest wait for any message while one is due (see WsConnection.awaiting) */
  idleTimeoutMs?: number;
  /** the call log (apilog/recorder): told the handshake's outcome; what it returns sees the session */
  watch?: (handshake: WsHandshake) => WsWatcher | undefined;
  /** --max-retries for the handshake (default 0) */
  maxRetries?: number;
  /** a retry is about to wait: a note for people */
  onRetry?: (note: string) => void;
  /** proxy, trusted roots, client certificate (net/network.ts) */
  network?: NetworkInputs;
  onWarn?: (note: string) => void;
  /** for tests of the policy */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** SVC_ALLOW_INSECURE_HTTP=1: plain ws:// to a host that is not loopback (net/origin.ts) */
  allowInsecureHttp?: boolean;
}

/** The outcome of a handshake, for the call log (like HttpCall for a request). */
export interface WsHandshake {
  path: string;
  query?: Query;
  /** 101 when the socket opened, the status of a refused upgrade, null when no reply came */
  status: number | null;
  /** when the handshake started (ms since the epoch) */
  startedAt: number;
  requestId?: string;
  /** why it failed (redacted) */
  error?: string;
  /** the 101 came from an emulator (x-svc-emulator) */
  emulated?: boolean;
}

/** Sees one open session: every JSON event each way, and its end (once). */
export interface WsWatcher {
  sent(event: Record<string, unknown>): void;
  received(event: WsJsonEvent): void;
  /**
   * The session ended: the code of the close frame that ended it (the client's own when it closed first; 1006 when the
   * connection was cut), why when it was not a normal end, and whether the client closed it.
   */
  ended(code: number | undefined, error: string | undefined, byClient: boolean): void;
}

export type WsJsonEvent = Record<string, unknown> & { type?: string };
/** `receivedAt`: performance.now() when the socket handed the message over (latency figures) */
export type WsMessage =
  | { type: 'json'; data: WsJsonEvent; receivedAt?: number }
  | { type: 'binary'; data: Buffer; receivedAt?: number };

/** ws:// or wss:// from the REST base URL. */
export function wsBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/^http(s?):\/\//i, (_m, s: string) => `ws${s}://`);
}

/**
 * Bytes of messages held for a reader that is behind (a slow stdout, a file, a speaker paced at real time): past
 * HIGH the socket stops reading, so TCP's window pushes back on the server, until the reader is down to LOW. Without
 * it a server that renders faster than the audio is consumed filled the heap with the whole session.
 */
const QUEUE_HIGH = 4 * 1024 * 1024;
const QUEUE_LOW = 1024 * 1024;

/** Close codes the client treats as normal ends of a session. */
const NORMAL_CLOSE = new Set([1000, 1001, 1005]);

export class WsConnection {
  private queue: { msg: WsMessage; bytes: number }[] = [];
  /** the bytes of the messages in `queue` */
  private queuedBytes = 0;
  private waiters: ((v: IteratorResult<WsMessage>) => void)[] = [];
  private failers: ((e: unknown) => void)[] = [];
  private closed = false;
  private failure?: Error;
  closeCode?: number;
  closeReason?: string;
  /**
   * Whether the server owes a message now. While it does, a silence longer than the idle timeout fails the
   * connection ("no data within --timeout"); a session that may rightly stay quiet (nobody speaks) says false.
   */
  awaiting: () => boolean = () => true;
  /** Whether the protocol has the server send binary frames (audio); where it does not, one is a protocol error. */
  binaryFrames = false;
  private lastMessageAt = Date.now();
  private idleTimer?: NodeJS.Timeout;

  constructor(
    readonly socket: WebSocket,
    private readonly redact: (s: string) => string,
    private readonly trace?: (l: string) => void,
    readonly idleTimeoutMs?: number,
    private readonly watcher?: WsWatcher,
  ) {
    if (idleTimeoutMs && idleTimeoutMs > 0) this.watchIdle(idleTimeoutMs);
    socket.on('message', (data, isBinary) => {
      this.lastMessageAt = Date.now();
      const receivedAt = performance.now();
      if (this.closed) return;
      if (isBinary) {
        const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
        if (!this.binaryFrames)
          return this.protocolError(`a binary frame (${bytes.length} bytes) where only JSON events are sent`);
        return this.push({ type: 'binary', data: bytes, receivedAt }, bytes.length);
      }
      const text = data.toString();
      this.trace?.(this.redact(`< ${text.length > 500 ? `${text.slice(0, 500)}…` : text}`));
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      // every protocol's events are JSON objects with a type
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        return this.protocolError(`an event that is not a JSON object: ${JSON.stringify(text.slice(0, 200))}`);
      this.watcher?.received(parsed as WsJsonEvent);
      this.push({ type: 'json', data: parsed as WsJsonEvent, receivedAt }, text.length);
    });
    socket.on('close', (code, reason) => {
      this.closeCode = code;
      this.closeReason = reason.toString();
      this.trace?.(`< close ${code} ${this.closeReason}`);
      if (!NORMAL_CLOSE.has(code) && !this.failure) {
        this.failure = new NetworkError(
          `the server closed the connection (code ${code}${this.closeReason ? `: ${this.closeReason}` : ''})`,
        );
      }
      this.report(code, this.failure?.message, false);
      this.finish();
    });
    socket.on('error', (err) => {
      if (!this.failure) this.failure = new NetworkError(`WebSocket error: ${err.message}`, undefined, err);
      // the socket is gone (its close event, 1006, may come after the command has ended)
      this.report(1006, this.failure.message, false);
      this.finish();
    });
  }

  /**
   * The idle clock runs from the last message or the last moment nothing was owed, whichever is later; checked a
   * few times per timeout so a long quiet stretch that was allowed is not counted against the next reply.
   */
  private watchIdle(timeoutMs: number): void {
    let quietSince = Date.now();
    const step = Math.max(20, Math.min(1000, Math.floor(timeoutMs / 4)));
    this.idleTimer = setInterval(() => {
      if (this.closed) return this.stopIdle();
      const now = Date.now();
      // a reader that is behind is no stall of the server's (the socket may be paused for it)
      if (!this.awaiting() || this.queue.length) {
        quietSince = now;
        return;
      }
      if (now - Math.max(this.lastMessageAt, quietSince) < timeoutMs) return;
      const seconds = timeoutMs / 1000;
      this.failure ??= new NetworkError(
        `the server sent nothing for ${seconds} s (--timeout ${seconds}): the session stalled`,
      );
      this.trace?.(`< idle for ${seconds} s: closing`);
      this.stopIdle();
      this.report(1006, this.failure.message, false);
      this.socket.terminate();
      this.finish();
    }, step);
    this.idleTimer.unref();
  }

  private reported = false;

  /** The server broke the protocol: the session ends here, and the next read throws what it sent. */
  private protocolError(what: string): void {
    this.failure ??= new ProtocolError(`the server sent ${what}`);
    this.trace?.(`< ${this.failure.message}: closing`);
    this.report(1002, this.failure.message, true);
    this.socket.close(1002, 'protocol error');
    this.finish();
  }

  /** Tell the watcher how the session ended, once (it still sees what arrives after the client's close). */
  private report(code: number | undefined, error: string | undefined, byClient: boolean): void {
    if (this.reported) return;
    this.reported = true;
    this.watcher?.ended(code, error, byClient);
  }

  private stopIdle(): void {
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = undefined;
  }

  private push(msg: WsMessage, bytes: number): void {
    const w = this.waiters.shift();
    if (w) {
      this.failers.shift();
      w({ value: msg, done: false });
      return;
    }
    this.queue.push({ msg, bytes });
    this.queuedBytes += bytes;
    if (this.queuedBytes > QUEUE_HIGH && !this.socket.isPaused) this.socket.pause();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopIdle();
    const waiters = this.waiters.splice(0);
    const failers = this.failers.splice(0);
    waiters.forEach((w, i) => (this.failure ? failers[i]!(this.failure) : w({ value: undefined, done: true })));
  }

  get isOpen(): boolean {
    return !this.closed && this.socket.readyState === 1;
  }

  /** Send a JSON event. */
  send(event: Record<string, unknown>): void {
    const text = JSON.stringify(event);
    this.trace?.(this.redact(`> ${text.length > 500 ? `${text.slice(0, 500)}…` : text}`));
    this.watcher?.sent(event);
    this.socket.send(text);
  }

  sendBinary(data: Uint8Array): void {
    this.socket.send(data, { binary: true });
  }

  /**
   * Resolves once the socket's send buffer is below QUEUE_HIGH (at once while it is, or when the socket is gone): a
   * sender faster than the network (a file sent with --no-realtime) waits here instead of buffering all of it.
   */
  async sendable(): Promise<void> {
    while (this.isOpen && this.socket.bufferedAmount > QUEUE_HIGH) await new Promise((r) => setTimeout(r, 5));
  }

  /** The next message, or undefined when the socket closed normally; throws on an abnormal close. */
  next(): Promise<WsMessage | undefined> {
    const held = this.queue.shift();
    if (held) {
      this.queuedBytes -= held.bytes;
      if (this.queuedBytes <= QUEUE_LOW && this.socket.isPaused) this.socket.resume();
      return Promise.resolve(held.msg);
    }
    if (this.closed) return this.failure ? Promise.reject(this.failure) : Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      this.waiters.push((r) => resolve(r.done ? undefined : r.value));
      this.failers.push(reject);
    });
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<WsMessage> {
    for (;;) {
      const m = await this.next();
      if (!m) return;
      yield m;
    }
  }

  close(code = 1000, reason = ''): void {
    if (this.socket.readyState === 0 || this.socket.readyState === 1) {
      // the session ends here, with this code (the server answers with it); a failure seen before still counts
      this.report(code, this.failure?.message, true);
      // the server's close frame must be read even when the reader stopped reading
      if (this.socket.isPaused) this.socket.resume();
      this.socket.close(code, reason);
    }
  }

  /** Wait until the socket has closed. */
  closedPromise(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => this.socket.once('close', () => resolve()));
  }
}

/** " (code 1000: reason)" of a closed connection, for notes and errors; empty while it is open. */
export function closeNote(conn: Pick<WsConnection, 'closeCode' | 'closeReason'>): string {
  const { closeCode, closeReason } = conn;
  return closeCode ? ` (code ${closeCode}${closeReason ? `: ${closeReason}` : ''})` : '';
}

/** Statuses of a refused handshake that are retried (before anything was sent, as a GET is). */
const RETRY_HANDSHAKE = new Set([429, 502, 503, 504]);

/** What a handshake's failure was, for the retry policy and the call log. */
class HandshakeFailure {
  constructor(
    readonly error: Error,
    readonly status: number | null,
    readonly retryAfterMs?: number,
  ) {}
}

/**
 * Open a WebSocket with the retry policy of a GET: a handshake answered 429 (after its Retry-After), 502, 503 or
 * 504, or a refused connection, is tried again (--max-retries, backoff, a note). Once open, nothing is retried: the
 * session's audio or text is never sent twice. The call log hears of the last attempt.
 */
export async function connectWs(opts: WsOptions): Promise<WsConnection> {
  const { default: WS } = await import('ws');
  const url = buildUrl(wsBaseUrl(opts.baseUrl), opts.path, opts.query);
  // the key only to the base URL's origin, plain ws:// only to loopback: before connecting (net/origin.ts)
  checkDestination(url, {
    baseUrl: opts.baseUrl,
    withKey: !!opts.apiKey,
    allowInsecureHttp: !!opts.allowInsecureHttp,
  });
  const redact = (s: string) => redactCredentials(opts.apiKey ? s.split(opts.apiKey).join('[REDACTED]') : s);
  const route = networkConfigured(opts.network) ? await wsRoute(url, opts.network, opts) : undefined;
  const startedAt = Date.now();
  const maxRetries = opts.maxRetries ?? 0;
  for (let attempt = 0; ; attempt++) {
    try {
      return await openOnce(WS, url, opts, redact, route, startedAt);
    } catch (err) {
      if (!(err instanceof HandshakeFailure)) throw err;
      const delay = attempt < maxRetries ? handshakeRetryDelay(err, attempt) : undefined;
      if (delay === undefined) {
        opts.watch?.({
          path: opts.path,
          query: opts.query,
          status: err.status,
          startedAt,
          requestId: (err.error as ApiError).requestId,
          error: redact(err.error.message),
        });
        throw err.error;
      }
      const why = err.status ? `HTTP ${err.status}` : 'connection refused';
      const after = err.retryAfterMs !== undefined ? " (the server's Retry-After)" : '';
      const note =
        `note: ${why} on the WebSocket handshake ${opts.path}; retrying in ${(delay / 1000).toFixed(1)} s${after} ` +
        `(retry ${attempt + 1} of ${maxRetries})`;
      opts.trace?.(note);
      opts.onRetry?.(note);
      await (opts.sleep ?? sleep)(delay, opts.signal);
    }
  }
}

function handshakeRetryDelay(f: HandshakeFailure, attempt: number): number | undefined {
  const refused = (f.error as NetworkError).cause as { code?: string } | undefined;
  if (f.status !== null && RETRY_HANDSHAKE.has(f.status)) return f.retryAfterMs ?? backoffMs(attempt);
  if (f.status === null && refused?.code === 'ECONNREFUSED') return backoffMs(attempt);
  return undefined;
}

/** How a socket to `url` is made: through the proxy that applies, trusting what the settings say. */
interface WsRoute {
  options: Record<string, unknown>;
  proxy?: string;
  tls: TlsSettings;
  /** the proxy's answer to the last CONNECT (a refusal arrives as the handshake's response) */
  connectStatus?: number;
}

async function wsRoute(url: string, net: NetworkInputs, opts: WsOptions): Promise<WsRoute> {
  const network = await import('./network.js');
  const u = new URL(url);
  const proxy = network.proxyFor(u, net);
  // certificates for wss:// (and an https proxy) only
  const tls = u.protocol === 'wss:' || proxy?.startsWith('https:') ? network.tlsSettings(net, opts.onWarn) : {};
  const route: WsRoute = { options: { ...tls }, proxy, tls };
  if (proxy) {
    opts.trace?.(`* ${new URL(url).host} through the proxy ${network.proxyName(proxy)}`);
    // https-proxy-agent makes the CONNECT tunnel (ws and wss alike) and the TLS handshake inside it with `tls`
    const { HttpsProxyAgent } = await import('https-proxy-agent');
    const agent = new HttpsProxyAgent(proxy, { ca: tls.ca, timeout: opts.handshakeTimeoutMs ?? 15_000 });
    agent.on('proxyConnect', (res: { statusCode: number }) => (route.connectStatus = res.statusCode));
    route.options.agent = agent;
  }
  return route;
}

/** One handshake: the open connection, or a HandshakeFailure saying why not. */
function openOnce(
  WS: typeof WebSocket,
  url: string,
  opts: WsOptions,
  redact: (s: string) => string,
  route: WsRoute | undefined,
  startedAt: number,
): Promise<WsConnection> {
  opts.trace?.(redact(`> WS ${url}`));
  let requestId: string | undefined;
  let emulated = false;
  const headers: Record<string, string> = { 'user-agent': opts.userAgent };
  if (opts.apiKey && !opts.subprotocol) headers.authorization = `Bearer ${opts.apiKey}`;
  const socket = new WS(url, opts.subprotocol ? [opts.subprotocol] : [], {
    ...route?.options,
    headers,
    handshakeTimeout: opts.handshakeTimeoutMs ?? 15_000,
    perMessageDeflate: false,
  });
  return new Promise<WsConnection>((resolve, reject) => {
    // a refusal's own socket error (terminate before the open) is not a second failure
    let answered = false;
    const onAbort = () => {
      socket.terminate();
      const error = 'interrupted before the connection opened';
      opts.watch?.({ path: opts.path, query: opts.query, status: null, startedAt, requestId, error });
      reject(new InterruptedError());
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('unexpected-response', (_req, res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        opts.signal?.removeEventListener('abort', onAbort);
        const text = Buffer.concat(chunks).toString();
        const status = res.statusCode ?? 0;
        const { message, code } = parseErrorBody(status, text, String(res.headers['content-type'] ?? ''));
        requestId = res.headers['x-request-id'] as string | undefined;
        opts.trace?.(`< ${status} ${redact(text)}`);
        socket.terminate();
        if (route?.proxy && route.connectStatus !== undefined && route.connectStatus !== 200) {
          void proxyFailure({ message: `Proxy response (${status})` }, route.proxy).then((m) =>
            reject(new HandshakeFailure(new NetworkError(redact(m ?? 'the proxy refused')), null)),
          );
          return;
        }
        const retryAfter = parseRetryAfter(res.headers['retry-after']);
        const e = new ApiError(status, redact(message), code, requestId, retryAfter);
        reject(new HandshakeFailure(e, status, retryAfter));
      });
    });
    socket.once('upgrade', (res) => {
      requestId = res.headers['x-request-id'] as string | undefined;
      emulated = res.headers['x-svc-emulator'] !== undefined;
    });
    socket.once('open', () => {
      opts.signal?.removeEventListener('abort', onAbort);
      opts.trace?.(`< 101 connected${requestId ? ` (x-request-id ${requestId})` : ''}`);
      const handshake = { path: opts.path, query: opts.query, status: 101, startedAt, requestId };
      const watcher = opts.watch?.(emulated ? { ...handshake, emulated } : handshake);
      resolve(new WsConnection(socket, redact, opts.trace, opts.idleTimeoutMs, watcher));
    });
    socket.once('error', (err) => {
      opts.signal?.removeEventListener('abort', onAbort);
      if (answered) return;
      void describeHandshakeError(err, url, route).then((m) =>
        reject(new HandshakeFailure(new NetworkError(redact(m), undefined, err), null)),
      );
    });
  });
}

async function proxyFailure(err: unknown, proxy: string): Promise<string | undefined> {
  const { describeProxyError } = await import('./tls-errors.js');
  return describeProxyError(err, proxy);
}

/** A handshake's network failure in words: a TLS trust error with its issuer and fix, the proxy named. */
async function describeHandshakeError(err: Error, url: string, route: WsRoute | undefined): Promise<string> {
  const u = new URL(url);
  if (isTlsTrustError(err)) {
    const tls = await import('./tls-errors.js');
    const network = await import('./network.js');
    const https = new URL(u.href.replace(/^ws/, 'http'));
    return tls.describeTlsError(err, https, { proxy: route?.proxy, tls: route?.tls, network });
  }
  if (route?.proxy) {
    const said = await proxyFailure(err, route.proxy);
    if (said) return said;
  }
  return `cannot open WebSocket ${u.host}${u.pathname}: ${err.message}`;
}
