// The one HTTP chokepoint: auth, base URL, user agent, timeouts, retries, request ids, redacted traces.
// A direct connection with Node's own trust goes over node:http/https (net/direct-http.ts); a proxy, or an https origin
// with a CA setting or a client certificate, over undici, loaded lazily, on the first request, and only its Agent,
// request API and HTTP/1.1 client (loadAgent), or its ProxyAgent.
import {
  ApiError,
  FileWriteError,
  InterruptedError,
  NetworkError,
  ProtocolError,
  UsageError,
  isFileSystemError,
  parseErrorBody,
} from '../core/errors.js';
import { checkDestination } from './origin.js';

export type Query = Record<string, string | number | boolean | undefined | null | (string | number)[]>;

/** A body that can be sent again on a retry: a string/bytes, or a factory making a fresh stream. */
export type RequestBody = string | Uint8Array | (() => AsyncIterable<Uint8Array> | NodeJS.ReadableStream);

export interface RequestOptions {
  method: string;
  /** path below the base URL (`/v1/models`), or an absolute URL */
  path: string;
  query?: Query;
  headers?: Record<string, string>;
  /** sent as JSON */
  json?: unknown;
  body?: RequestBody;
  /** statuses that are not errors besides 2xx (e.g. 202 for deferred jobs) */
  okStatuses?: number[];
  /** false to send no Authorization header (public links) */
  auth?: boolean;
  signal?: AbortSignal;
  /** override the retry count for this call */
  maxRetries?: number;
}

/** A reply's body: a stream, with undici's text() and dump() (both clients give it). */
export type ReplyBody = import('node:stream').Readable & {
  text(): Promise<string>;
  /** reads and drops the rest (up to a limit, then closes the connection) */
  dump(): Promise<unknown>;
};

/** What a dispatcher is asked: undici's request() options as net/http uses them. */
export interface SendOptions {
  origin: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | AsyncIterable<Uint8Array> | NodeJS.ReadableStream;
  signal?: AbortSignal;
  headersTimeout: number;
  bodyTimeout: number;
}

export interface SenderReply {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: ReplyBody;
}

/** The dispatcher under the client: undici's (request() and close()) or net/direct-http's on node:http. */
export interface Sender {
  request(options: SendOptions): Promise<SenderReply>;
  close(): Promise<void>;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  requestId?: string;
  body: ReplyBody;
  json<T = unknown>(): Promise<T>;
  text(): Promise<string>;
  /** a streamed reply's event, as read (net/sse): the call log keeps what arrived */
  event?(data: unknown): void;
  /** the reply did not end as its protocol says (no end marker, not an event stream): the call log says why */
  failed?(reason: string): void;
}

export interface HttpClientOptions {
  baseUrl: string;
  apiKey?: string;
  userAgent: string;
  timeoutMs: number;
  connectTimeoutMs?: number;
  maxRetries: number;
  /** trace sink for --verbose; every line passes through redaction first */
  trace?: (line: string) => void;
  signal?: AbortSignal;
  /** told of each request once it is answered or has failed (the call log, apilog/log.ts) */
  onCall?: (call: HttpCall) => void;
  /** told of each JSON reply parsed, with the call it answers */
  onReply?: (call: HttpCall, body: unknown) => void;
  /** told of each event of a streamed reply (net/sse), with the call it answers */
  onStreamEvent?: (call: HttpCall, data: unknown) => void;
  /**
   * told when a reply that began did not end as it should: interrupted (Ctrl-C, SIGTERM), cut, stalled, without its
   * end marker — the call log records the call as such, not as a 200 that answered nothing
   */
  onCallFailed?: (call: HttpCall, reason: string) => void;
  /** SVC_ALLOW_INSECURE_HTTP=1: plain http:// to a host that is not loopback (net/origin.ts) */
  allowInsecureHttp?: boolean;
  /** for tests of the policy */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** a retry is about to wait: a note for people (stderr, not with --quiet) */
  onRetry?: (note: string) => void;
  /** proxy, trusted roots and client certificate (net/network.ts, loaded only when one is set) */
  network?: NetworkInputs;
  /** a warning for people (a client key others can read) */
  onWarn?: (note: string) => void;
}

/** What decides proxies and trust (runtime/config resolves it; net/network reads it). */
export interface NetworkInputs {
  env: NodeJS.ProcessEnv;
  /** --proxy or the profile's `proxy`: a URL, or '' for none; undefined to read the environment */
  proxy?: string;
  /** SVC_CA_CERT or `ca_cert` */
  caCert?: string;
  clientCert?: string;
  clientKey?: string;
}

const NETWORK_VARS = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY', 'SSL_CERT_FILE', 'SSL_CERT_DIR'];

/**
 * Whether net/network has anything to decide: without a proxy, a CA setting or a client certificate, it is not
 * loaded at all (nothing is added to the start of a command).
 */
export function networkConfigured(net: NetworkInputs | undefined): net is NetworkInputs {
  if (!net) return false;
  if (net.proxy !== undefined || net.caCert || net.clientCert || net.clientKey) return true;
  return NETWORK_VARS.some((name) => !!net.env[name]);
}

/** How requests to one origin are made: the dispatcher, and the proxy it goes through (for messages). */
interface Route {
  dispatcher: Sender;
  proxy?: string;
}

/** One request as the call log sees it (after retries). */
export interface HttpCall {
  method: string;
  path: string;
  status: number | null;
  durationMs: number;
  requestId?: string;
  error?: string;
  /** the JSON body sent */
  json?: unknown;
  /** answered by an emulator (its reply carries x-svc-emulator): logged as emulated, never counted toward a budget */
  emulated?: boolean;
}

const RETRY_ALWAYS = new Set([429]);
const RETRY_IDEMPOTENT = new Set([408, 409, 500, 502, 503, 504]);
const MAX_RETRY_AFTER_MS = 60_000;

/** Retry-After: seconds or an HTTP date; capped at 60 s. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  let ms: number;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) ms = Number(v) * 1000;
  else {
    const t = Date.parse(v);
    if (Number.isNaN(t)) return undefined;
    ms = t - now;
  }
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}

/** Exponential backoff with jitter: 0.5 s, 1 s, 2 s … capped at 8 s, each less up to 25 %. */
export function backoffMs(attempt: number, random = Math.random): number {
  const base = Math.min(500 * 2 ** attempt, 8000);
  return base * (1 - random() * 0.25);
}

/**
 * The status a proxy refused with, from undici's error: a CONNECT answered other than 200, or a 407 to a request sent
 * on in absolute form; undefined for any other failure.
 */
export function proxyRefusalStatus(err: unknown): number | undefined {
  const m = /Proxy response \((\d{3})\)|Proxy Authentication Required \((\d{3})\)/.exec(
    (err as Error | undefined)?.message ?? '',
  );
  return m ? Number(m[1] ?? m[2]) : undefined;
}

/** The error undici gives for a proxy's refusal of CONNECT, for a refusal seen as a reply (absolute form). */
const proxyRefusal = (status: number) => new Error(`Proxy response (${status}) to a forwarded request`);

/**
 * A reply that is the http proxy's demand for credentials, not the API's: 407, or (tinyproxy and others) a 401 with a
 * Basic challenge that is not JSON (the API's errors are). Only for plain http:// through an http proxy, where the
 * request went in absolute form and the proxy answers in the server's place.
 */
function proxyAsksCredentials(res: SenderReply, url: string, proxy: string): boolean {
  if (!url.startsWith('http:') || !proxy.startsWith('http:')) return false;
  if (res.statusCode === 407) return true;
  const challenge = headerValue(res.headers['proxy-authenticate'] ?? res.headers['www-authenticate']) ?? '';
  const type = headerValue(res.headers['content-type']) ?? '';
  return res.statusCode === 401 && /^basic/i.test(challenge) && !/json/i.test(type);
}

export function shouldRetry(method: string, status: number): boolean {
  if (RETRY_ALWAYS.has(status)) return true;
  return (method === 'GET' || method === 'HEAD') && RETRY_IDEMPOTENT.has(status);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new InterruptedError());
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(t);
      reject(new InterruptedError());
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function buildUrl(baseUrl: string, path: string, query?: Query): string {
  const url = /^[a-z]+:\/\//i.test(path) ? new URL(path) : new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) url.searchParams.append(k, String(item));
    else url.searchParams.set(k, String(v));
  }
  return url.toString();
}

/**
 * Encode one path parameter (ids come from users and servers alike). `.`, `..` and an empty id would change
 * which endpoint the path names (`/v1/files/../content` is `/v1/content`): refused before anything is sent.
 */
export function seg(v: string): string {
  const s = String(v);
  if (s === '' || s === '.' || s === '..')
    throw new UsageError(`${JSON.stringify(s)} is not a valid id (an id cannot be empty, "." or "..")`);
  return encodeURIComponent(s);
}

/** Levels of nesting a JSON body may have: deeper bodies are refused before sending (JSON.stringify recurses). */
export const MAX_JSON_DEPTH = 200;

/** The nesting depth of a JSON value, counted without recursion; stops counting past `limit`. */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max > limit) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v as object))
      if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
  }
  return max;
}

/** A request as each attempt sends it. */
interface Outgoing {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** the JSON body, serialised once */
  payload: string | undefined;
  maxRetries: number;
  signal?: AbortSignal;
}

/** The JSON body as sent; a body nested deeper than MAX_JSON_DEPTH is refused before anything is sent. */
function jsonPayload(json: unknown): string | undefined {
  if (json !== undefined && jsonDepth(json) > MAX_JSON_DEPTH) {
    throw new UsageError(
      `the request body nests JSON more than ${MAX_JSON_DEPTH} levels deep: check the JSON files given ` +
        `(--schema, --input, --tool, --data)`,
    );
  }
  return json !== undefined ? JSON.stringify(json) : undefined;
}

export class HttpClient {
  private direct?: Promise<Sender>;
  private tlsDispatcher?: Promise<Sender>;
  private routes = new Map<string, Promise<Route>>();
  private proxyAgents: Sender[] = [];
  private network?: Promise<typeof import('./network.js')>;
  private tls?: import('./network.js').TlsSettings;
  /** whether a request has gone out: a destination refused after that is exit 1, not "nothing was sent" */
  private sent = false;

  constructor(readonly opts: HttpClientOptions) {}

  get baseUrl(): string {
    return this.opts.baseUrl;
  }

  /** Remove the key (and a proxy's password) from any text on its way to a trace or an error message. */
  redact(text: string): string {
    const key = this.opts.apiKey;
    const t = key ? text.split(key).join('[REDACTED]') : text;
    return this.opts.network ? redactCredentials(t) : t;
  }

  private traceLine(line: string): void {
    this.opts.trace?.(this.redact(line));
  }

  private get connectTimeoutMs(): number {
    // never longer than --timeout
    return this.opts.connectTimeoutMs ?? Math.min(10_000, this.opts.timeoutMs);
  }

  private agentOptions() {
    return {
      headersTimeout: this.opts.timeoutMs,
      bodyTimeout: this.opts.timeoutMs,
      keepAliveTimeout: KEEP_ALIVE_MS,
      // Node's default for a response's headers, set here so that undici does not load node:http to read it
      maxHeaderSize: MAX_HEADER_BYTES,
    };
  }

  /** undici's dispatcher for an origin with certificates of its own (`tls`: trusted roots, a client certificate) */
  private agent(tls: import('./network.js').TlsSettings): Promise<Sender> {
    this.tlsDispatcher ??= loadAgent({ connect: { timeout: this.connectTimeoutMs, ...tls }, ...this.agentOptions() });
    return this.tlsDispatcher;
  }

  /** Without a proxy, a CA setting or a client certificate for the origin: node:http/https (net/direct-http.ts). */
  private directSender(): Promise<Sender> {
    this.direct ??= import('./direct-http.js').then(({ createDirectSender }) =>
      createDirectSender({
        connectTimeoutMs: this.connectTimeoutMs,
        keepAliveTimeoutMs: KEEP_ALIVE_MS,
        maxHeaderSize: MAX_HEADER_BYTES,
      }),
    );
    return this.direct;
  }

  /** How requests to `url`'s origin go: decided once per origin (direct, or through the proxy that applies). */
  private route(url: string): Promise<Route> {
    const origin = new URL(url).origin;
    let r = this.routes.get(origin);
    if (!r) {
      r = this.makeRoute(new URL(url));
      this.routes.set(origin, r);
      r.catch(() => this.routes.delete(origin));
    }
    return r;
  }

  private async makeRoute(url: URL): Promise<Route> {
    const net = this.opts.network;
    if (!networkConfigured(net)) return { dispatcher: await this.directSender() };
    const network = await (this.network ??= import('./network.js'));
    // certificates are read for https origins only (an http:// emulator needs none, and pays nothing for them)
    const tls = url.protocol === 'https:' ? (this.tls ??= network.tlsSettings(net, this.opts.onWarn)) : undefined;
    const proxy = network.proxyFor(url, net);
    // no proxy for this origin and no certificates of its own (http://, as a local emulator behind NO_PROXY or with
    // SSL_CERT_FILE set): node:http/https as without settings; undici would add ~4 ms to the command (its parser)
    if (!proxy) return { dispatcher: tls?.ca || tls?.cert ? await this.agent(tls) : await this.directSender() };
    this.traceLine(`* ${url.origin} through the proxy ${network.proxyName(proxy)}`);
    const { ProxyAgent } = await import('undici');
    const requestTls = { timeout: this.connectTimeoutMs, ...tls };
    // an https proxy is verified with the same roots (the client certificate is for the API, not the proxy)
    const proxyCa = proxy.startsWith('https:')
      ? (this.tls ??= network.tlsSettings(net, this.opts.onWarn)).ca
      : undefined;
    const proxyTls = { timeout: this.connectTimeoutMs, ...(proxyCa ? { ca: proxyCa } : {}) };
    // plain http:// goes to an http proxy in absolute form, as curl sends it (no CONNECT: squid's default
    // configuration allows CONNECT to port 443 only); https:// and an https proxy are tunnelled
    const agent = new ProxyAgent({
      uri: proxy,
      requestTls,
      proxyTls,
      proxyTunnel: false,
      ...this.agentOptions(),
    }) as unknown as Sender;
    this.proxyAgents.push(agent);
    return { dispatcher: agent, proxy };
  }

  headersFor(opts: Pick<RequestOptions, 'headers' | 'auth' | 'json'>): Record<string, string> {
    const headers: Record<string, string> = {
      'user-agent': this.opts.userAgent,
      accept: 'application/json, */*',
      ...opts.headers,
    };
    if (opts.json !== undefined) headers['content-type'] = 'application/json';
    if (opts.auth !== false && this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    return headers;
  }

  /**
   * Send a request with the retry policy: 429 always, GET/HEAD also on 408/409/5xx and network errors,
   * POST on a refused connection (nothing reached the server). Never retried once the body is being read.
   */
  async request(req: RequestOptions): Promise<HttpResponse> {
    const url = buildUrl(this.opts.baseUrl, req.path, req.query);
    this.checkDestination(url, req);
    const out: Outgoing = {
      method: req.method.toUpperCase(),
      url,
      headers: this.headersFor(req),
      payload: jsonPayload(req.json),
      maxRetries: req.maxRetries ?? this.opts.maxRetries,
      signal: req.signal ?? this.opts.signal,
    };
    const wait = this.opts.sleep ?? sleep;
    const report = this.callReporter(out, req.json);
    const { dispatcher, proxy } = await this.route(out.url);

    for (let attempt = 0; ; attempt++) {
      if (out.signal?.aborted) throw new InterruptedError();
      const body = out.payload ?? (typeof req.body === 'function' ? req.body() : req.body);
      const started = Date.now();
      this.traceRequest(out, attempt);
      let res: SenderReply;
      try {
        res = await this.send(dispatcher, out, body);
      } catch (err) {
        if (out.signal?.aborted) throw new InterruptedError();
        const delay = this.networkRetryDelay(err, out, attempt);
        if (delay !== undefined) {
          await wait(delay, out.signal);
          continue;
        }
        const e = new NetworkError(this.redact(await this.describeFailure(err, out.url, proxy)), undefined, err);
        report(null, undefined, e.message);
        throw e;
      }
      const requestId = headerValue(res.headers['x-request-id']);
      const emulated = res.headers['x-svc-emulator'] !== undefined;
      this.traceResponse(res, out, started, requestId);
      if (proxy && proxyAsksCredentials(res, out.url, proxy)) {
        await res.body.dump().catch(() => {});
        const e = new NetworkError(
          this.redact(await this.describeFailure(proxyRefusal(res.statusCode), out.url, proxy)),
        );
        report(null, undefined, e.message);
        throw e;
      }

      const ok = (res.statusCode >= 200 && res.statusCode < 300) || req.okStatuses?.includes(res.statusCode);
      if (ok) return this.wrap(res, requestId, out.signal, report(res.statusCode, requestId, undefined, emulated));

      const text = await res.body.text().catch(() => '');
      this.traceLine(`< ${truncate(text, 2000)}`);
      const retryAfter = parseRetryAfter(res.headers['retry-after']);
      if (attempt < out.maxRetries && shouldRetry(out.method, res.statusCode)) {
        await wait(this.statusRetryDelay(res, retryAfter, out, attempt), out.signal);
        continue;
      }
      const { message, code } = parseErrorBody(res.statusCode, text, headerValue(res.headers['content-type']) ?? '');
      report(res.statusCode, requestId, this.redact(message), emulated);
      throw new ApiError(res.statusCode, this.redact(message), code, requestId, retryAfter);
    }
  }

  /**
   * The key only to the base URL's origin, plain http:// only to loopback (net/origin.ts): checked for every URL,
   * the API's paths and the absolute URLs of `svc api` and of replies (images, videos), before connecting.
   */
  private checkDestination(url: string, req: Pick<RequestOptions, 'auth'>): void {
    checkDestination(url, {
      baseUrl: this.opts.baseUrl,
      withKey: req.auth !== false && !!this.opts.apiKey,
      allowInsecureHttp: !!this.opts.allowInsecureHttp,
      sentBefore: this.sent,
    });
    this.sent = true;
  }

  /** Tells the call log (onCall) of the request once it is answered or has failed, timed from now. */
  private callReporter(out: Outgoing, json: unknown) {
    const t0 = Date.now();
    return (status: number | null, requestId?: string, error?: string, emulated?: boolean): HttpCall | undefined => {
      if (!this.opts.onCall) return undefined;
      const call: HttpCall = {
        method: out.method,
        path: new URL(out.url).pathname,
        status,
        durationMs: Date.now() - t0,
        requestId,
        error,
        json,
        ...(emulated ? { emulated } : {}),
      };
      this.opts.onCall(call);
      return call;
    };
  }

  private traceRequest(out: Outgoing, attempt: number): void {
    this.traceLine(`> ${out.method} ${out.url}${attempt ? ` (retry ${attempt}/${out.maxRetries})` : ''}`);
    for (const [k, v] of Object.entries(out.headers))
      this.traceLine(`> ${k}: ${k === 'authorization' ? 'Bearer [REDACTED]' : v}`);
    if (out.payload !== undefined) this.traceLine(`> ${truncate(out.payload, 2000)}`);
  }

  private send(dispatcher: Sender, out: Outgoing, body: SendOptions['body']): Promise<SenderReply> {
    const target = new URL(out.url);
    return dispatcher.request({
      origin: target.origin,
      path: target.pathname + target.search,
      method: out.method,
      headers: out.headers,
      body,
      signal: out.signal,
      headersTimeout: this.opts.timeoutMs,
      bodyTimeout: this.opts.timeoutMs,
    });
  }

  /** After a network error: the wait before the next attempt (said in a note), or undefined when none is made. */
  private networkRetryDelay(err: unknown, { method, url, maxRetries }: Outgoing, attempt: number): number | undefined {
    const code = (err as { code?: string }).code ?? '';
    const refused = code === 'ECONNREFUSED' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ENOTFOUND';
    // a certificate that is not trusted is not trusted on the next try either; nor are refused proxy credentials
    // (407) or a proxy's other refusal (4xx): only its 5xx may pass
    const byProxy = proxyRefusalStatus(err);
    const retriable =
      attempt < maxRetries &&
      (refused || method === 'GET' || method === 'HEAD') &&
      code !== 'ENOTFOUND' &&
      !isTlsTrustError(err) &&
      (byProxy === undefined || byProxy >= 500);
    this.traceLine(`< network error ${code} ${(err as Error).message}`);
    if (!retriable) return undefined;
    const delay = backoffMs(attempt);
    this.opts.onRetry?.(
      `note: ${code || 'network error'} on ${method} ${new URL(url).pathname}; retrying in ` +
        `${(delay / 1000).toFixed(1)} s (retry ${attempt + 1} of ${maxRetries})`,
    );
    return delay;
  }

  private traceResponse(
    res: SenderReply,
    { method, url }: Outgoing,
    started: number,
    requestId: string | undefined,
  ): void {
    this.traceLine(
      `< ${res.statusCode} ${method} ${url} (${Date.now() - started} ` +
        `ms${requestId ? `, x-request-id ${requestId}` : ''})`,
    );
    for (const [k, v] of Object.entries(res.headers)) if (k !== 'set-cookie') this.traceLine(`< ${k}: ${String(v)}`);
  }

  /** A status that is retried: the wait before the next attempt (the server's Retry-After, else backoff), noted. */
  private statusRetryDelay(
    res: SenderReply,
    retryAfter: number | undefined,
    { method, url, maxRetries }: Outgoing,
    attempt: number,
  ): number {
    const delay = retryAfter ?? backoffMs(attempt);
    this.traceLine(`retrying in ${Math.round(delay)} ms`);
    const why = retryAfter !== undefined ? " (the server's Retry-After)" : '';
    this.opts.onRetry?.(
      `note: HTTP ${res.statusCode} from ${method} ${new URL(url).pathname}; retrying in ` +
        `${(delay / 1000).toFixed(1)} s${why} (retry ${attempt + 1} of ${maxRetries})`,
    );
    return delay;
  }

  private wrap(res: SenderReply, requestId: string | undefined, signal?: AbortSignal, call?: HttpCall): HttpResponse {
    const onReply = this.opts.onReply;
    const { onStreamEvent, onCallFailed } = this.opts;
    const trace = (t: string) => this.traceLine(`< ${truncate(t, 2000)}`);
    let failedOnce = false;
    const failed = (reason: string) => {
      if (failedOnce || !call || !onCallFailed) return;
      failedOnce = true;
      onCallFailed(call, reason);
    };
    // a body that ends in an error (Ctrl-C aborts it, a drop, a stall) is a call that did not end: said to the log;
    // not when the reader let it go, having what it wanted (an abort without ours: UND_ERR_ABORTED, AbortError)
    res.body.once('error', (err: NodeJS.ErrnoException) => {
      const letGo = err.code === 'UND_ERR_ABORTED' || err.code === 'ABORT_ERR' || err.name === 'AbortError';
      if (signal?.aborted || !letGo) failed(streamError(err, requestId, signal).message);
    });
    // a drop or a stall while the body is read is reported as such, not as undici's own message
    const readText = async () => {
      try {
        const t = await res.body.text();
        trace(t);
        return t;
      } catch (err) {
        throw streamError(err, requestId, signal);
      }
    };
    const contentType = (headerValue(res.headers['content-type']) ?? '').split(';')[0]!.trim().toLowerCase();
    return {
      status: res.statusCode,
      headers: res.headers,
      requestId,
      body: res.body,
      text: readText,
      event: call && onStreamEvent ? (data) => onStreamEvent(call, data) : undefined,
      failed,
      async json<T>() {
        const t = await readText();
        if (t.trim() === '') return undefined as T;
        // a 200 with a web page (a proxy's error page) or any other type is not the API's answer
        if (contentType && !/json/.test(contentType)) {
          throw new ProtocolError(
            `the server sent ${contentType} instead of JSON: ${JSON.stringify(truncate(t.trim(), 200))}`,
            requestId,
          );
        }
        let parsed: T;
        try {
          parsed = JSON.parse(t) as T;
        } catch {
          throw new ProtocolError(
            `the server sent a reply that is not valid JSON: ${JSON.stringify(truncate(t, 200))}`,
            requestId,
          );
        }
        if (call && onReply) onReply(call, parsed);
        return parsed;
      },
    };
  }

  /** Request and parse JSON in one step. */
  async json<T = unknown>(
    method: string,
    path: string,
    opts: Omit<RequestOptions, 'method' | 'path'> = {},
  ): Promise<T> {
    const res = await this.request({ method, path, ...opts });
    return res.json<T>();
  }

  /** A network failure in words: TLS trust errors with the certificate's issuer and the fix, the proxy named. */
  private async describeFailure(err: unknown, url: string, proxy: string | undefined): Promise<string> {
    if (isTlsTrustError(err)) {
      const network = await (this.network ??= import('./network.js'));
      const tls = await import('./tls-errors.js');
      return tls.describeTlsError(err, new URL(url), { proxy, tls: this.tls, network });
    }
    if (proxy) {
      const { describeProxyError } = await import('./tls-errors.js');
      const said = describeProxyError(err, proxy);
      if (said) return said;
    }
    return describeNetworkError(err, url);
  }

  async close(): Promise<void> {
    for (const d of [this.direct, this.tlsDispatcher]) {
      const agent = await d?.catch(() => undefined);
      await agent?.close().catch(() => {});
    }
    for (const a of this.proxyAgents.splice(0)) await a.close().catch(() => {});
  }
}

type AgentOptions = ConstructorParameters<typeof import('undici').Agent>[0];

/** the largest response head accepted: node:http's default (16 KiB) */
const MAX_HEADER_BYTES = 16 * 1024;
/** how long an idle connection is kept for the next request */
const KEEP_ALIVE_MS = 4_000;

/**
 * undici's Agent with its request API and HTTP/1.1 client only (see undici-h1.cts): the whole package costs
 * ~45 ms more of every request command. Should undici's internal layout change, the whole package is loaded.
 */
async function loadAgent(options: NonNullable<AgentOptions>): Promise<Sender> {
  // Keep undici's WebAssembly HTTP parser on V8's baseline compiler: the optimising tier compiles it again in the
  // background, which delays the exit of every short command by ~70 ms and lifts the peak RSS by ~35 MB, for no
  // gain on transfers bound by the network and the disk. And compile all of it at once (not each function on its
  // first call), on V8's worker threads while undici loads (http-parser.ts). Must run before undici compiles it.
  // Node's own modules loaded after a change of V8's flags are compiled without their built-in code cache: those
  // undici loads (node:net and the modules it loads, node:tls: this agent serves https origins only) are loaded first
  // (~3 ms of every request).
  await import('node:net');
  await import('node:tls');
  const { setV8Flags } = await import('./v8-flags.js');
  await setV8Flags('--liftoff-only --no-wasm-lazy-compilation');
  const { compileParserInBackground } = await import('./http-parser.js');
  const parserReady = compileParserInBackground();
  try {
    const { createAgent } = await import('./undici-h1.cjs');
    // one turn of the event loop, in which V8 hands the parser's compilation to its worker threads
    if (parserReady) await new Promise((resolve) => setImmediate(resolve));
    return createAgent(options, parserReady) as unknown as Sender;
  } catch {
    const undici = await import('undici');
    return new undici.Agent(options) as unknown as Sender;
  }
}

/** The codes of a certificate the client does not trust (or that does not name the host): never retried. */
const TLS_TRUST_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Whether an error is a certificate the client does not trust (here or in what undici wrapped). */
export function isTlsTrustError(err: unknown): boolean {
  return TLS_TRUST_CODES.has(tlsCode(err) ?? '');
}

export function tlsCode(err: unknown): string | undefined {
  for (let e = err as { code?: string; cause?: unknown } | undefined, i = 0; e && i < 4; i++) {
    if (e.code && TLS_TRUST_CODES.has(e.code)) return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

/** user:password@ in URLs (a proxy's) hidden. */
export function redactCredentials(text: string): string {
  return text.replace(/(\/\/[^\s/:@]*):[^\s/@]+@/g, '$1:[REDACTED]@');
}

export function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function truncate(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}

function describeNetworkError(err: unknown, url: string): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code;
  const host = new URL(url).host;
  switch (code) {
    case 'ECONNREFUSED':
      return `cannot connect to ${host}: connection refused`;
    case 'ENOTFOUND':
      return `cannot resolve ${host}`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `cannot connect to ${host}: timed out`;
    case 'UND_ERR_HEADERS_TIMEOUT':
      return `${host} did not answer in time (see --timeout)`;
    case 'UND_ERR_BODY_TIMEOUT':
      return `${host} stopped sending in the middle of a reply (see --timeout)`;
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
      return `the connection to ${host} was closed unexpectedly`;
    default:
      return `request to ${host} failed: ${e.message ?? String(err)}`;
  }
}

/** Translate an error thrown while reading a body stream into one of ours. */
export function streamError(err: unknown, requestId?: string, signal?: AbortSignal): Error {
  if (signal?.aborted) return new InterruptedError();
  if (
    err instanceof InterruptedError ||
    err instanceof ApiError ||
    err instanceof NetworkError ||
    err instanceof ProtocolError ||
    err instanceof FileWriteError
  )
    return err;
  if (isFileSystemError(err)) return new FileWriteError(err.path ?? 'the output', err.code, err);
  const code = (err as { code?: string }).code;
  if (code === 'UND_ERR_BODY_TIMEOUT')
    return new NetworkError('the stream stalled (no data within --timeout)', requestId, err);
  return new NetworkError('the connection was lost in the middle of the stream', requestId, err);
}
