// WebSocket helper on `ws` (imported lazily): bearer auth, JSON events, binary frames, close codes as errors.
import type WebSocket from 'ws';
import { ApiError, InterruptedError, NetworkError, parseErrorBody } from '../core/errors.js';
import { buildUrl, type Query } from './http.js';

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
export type WsMessage = { type: 'json'; data: WsJsonEvent } | { type: 'binary'; data: Buffer };

/** ws:// or wss:// from the REST base URL. */
export function wsBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/^http(s?):\/\//i, (_m, s: string) => `ws${s}://`);
}

/** Close codes the client treats as normal ends of a session. */
const NORMAL_CLOSE = new Set([1000, 1001, 1005]);

export class WsConnection {
  private queue: WsMessage[] = [];
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
      let msg: WsMessage;
      if (isBinary) msg = { type: 'binary', data: Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]) };
      else {
        const text = data.toString();
        this.trace?.(this.redact(`< ${text.length > 500 ? `${text.slice(0, 500)}…` : text}`));
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        // every protocol's events are JSON objects with a type; anything else is kept for --json as `invalid`
        msg = {
          type: 'json',
          data:
            parsed && typeof parsed === 'object' && !Array.isArray(parsed)
              ? (parsed as WsJsonEvent)
              : { type: 'invalid', raw: text },
        };
        this.watcher?.received(msg.data);
      }
      this.push(msg);
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
      if (!this.awaiting()) {
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

  private push(msg: WsMessage): void {
    const w = this.waiters.shift();
    if (w) {
      this.failers.shift();
      w({ value: msg, done: false });
    } else this.queue.push(msg);
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

  /** The next message, or undefined when the socket closed normally; throws on an abnormal close. */
  next(): Promise<WsMessage | undefined> {
    const m = this.queue.shift();
    if (m) return Promise.resolve(m);
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

export async function connectWs(opts: WsOptions): Promise<WsConnection> {
  const { default: WS } = await import('ws');
  const url = buildUrl(wsBaseUrl(opts.baseUrl), opts.path, opts.query);
  const redact = (s: string) => (opts.apiKey ? s.split(opts.apiKey).join('[REDACTED]') : s);
  opts.trace?.(redact(`> WS ${url}`));
  const startedAt = Date.now();
  let requestId: string | undefined;
  let told = false;
  // once: a socket error after the open (or after a refusal) belongs to the session, not to the handshake
  const handshake = (status: number | null, error?: string): WsWatcher | undefined => {
    if (told) return undefined;
    told = true;
    return opts.watch?.({ path: opts.path, query: opts.query, status, startedAt, requestId, error });
  };
  const headers: Record<string, string> = { 'user-agent': opts.userAgent };
  if (opts.apiKey && !opts.subprotocol) headers.authorization = `Bearer ${opts.apiKey}`;
  const socket = new WS(url, opts.subprotocol ? [opts.subprotocol] : [], {
    headers,
    handshakeTimeout: opts.handshakeTimeoutMs ?? 15_000,
    perMessageDeflate: false,
  });
  return new Promise<WsConnection>((resolve, reject) => {
    const onAbort = () => {
      socket.terminate();
      handshake(null, 'interrupted before the connection opened');
      reject(new InterruptedError());
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        opts.signal?.removeEventListener('abort', onAbort);
        const text = Buffer.concat(chunks).toString();
        const { message, code } = parseErrorBody(res.statusCode ?? 0, text, String(res.headers['content-type'] ?? ''));
        requestId = res.headers['x-request-id'] as string | undefined;
        opts.trace?.(`< ${res.statusCode} ${redact(text)}`);
        socket.terminate();
        handshake(res.statusCode ?? null, redact(message));
        reject(new ApiError(res.statusCode ?? 0, redact(message), code, requestId));
      });
    });
    socket.once('upgrade', (res) => {
      requestId = res.headers['x-request-id'] as string | undefined;
    });
    socket.once('open', () => {
      opts.signal?.removeEventListener('abort', onAbort);
      opts.trace?.(`< 101 connected${requestId ? ` (x-request-id ${requestId})` : ''}`);
      resolve(new WsConnection(socket, redact, opts.trace, opts.idleTimeoutMs, handshake(101)));
    });
    socket.once('error', (err) => {
      opts.signal?.removeEventListener('abort', onAbort);
      const e = new NetworkError(
        `cannot open WebSocket ${new URL(url).host}${new URL(url).pathname}: ${err.message}`,
        undefined,
        err,
      );
      handshake(null, redact(e.message));
      reject(e);
    });
  });
}
