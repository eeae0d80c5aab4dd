// Requests over node:http and node:https for a direct connection with Node's own trust (no proxy, no CA setting, no
// client certificate: networkConfigured in net/http.ts). node:http is in Node's start-up snapshot and code cache;
// undici, its WebAssembly parser and the V8 flags it needs cost ~9 ms of CPU of every request command
// (docs/performance.md, issue 41). This keeps the part of undici's request() contract net/http.ts relies on: the
// reply's status, headers and a body stream with text() and dump(); a connect timeout and the headers and body
// timeouts of --timeout, failing with undici's codes (UND_ERR_CONNECT_TIMEOUT, UND_ERR_HEADERS_TIMEOUT,
// UND_ERR_BODY_TIMEOUT) so that one classification (retries, messages) serves both clients; an abort rejects the
// request or errors the body; idle connections are kept 4 s and never hold the process open.
import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { Readable, pipeline } from 'node:stream';
import { onAbort } from '../core/signals.js';
import type { ReplyBody, SendOptions, Sender, SenderReply } from './http.js';

export interface DirectOptions {
  connectTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxHeaderSize: number;
}

/** what undici's dump() reads of a body it lets go before it closes the connection instead */
const DUMP_LIMIT = 128 * 1024;

type Modules = { http: typeof import('node:http'); https?: typeof import('node:https') };

export async function createDirectSender(opts: DirectOptions): Promise<Sender> {
  // getBuiltinModule, not import(): an ES module namespace of node:http reads every export, and on Node 22 one of
  // them loads node:http2 (cli.test: models list loads no HTTP/2 code)
  return new DirectSender(opts, { http: process.getBuiltinModule('node:http') });
}

/** An error with undici's code for the same failure (net/http.ts classifies by code). */
function codedError(message: string, code: string, name = 'Error'): Error {
  return Object.assign(new Error(message), { code, name });
}

class DirectSender implements Sender {
  private agents = new Map<string, Agent>();

  constructor(
    private readonly opts: DirectOptions,
    private readonly modules: Modules,
  ) {}

  private agentFor(secure: boolean): Agent {
    const key = secure ? 'https:' : 'http:';
    let agent = this.agents.get(key);
    if (!agent) {
      const Kind = secure ? this.modules.https!.Agent : this.modules.http.Agent;
      // `timeout` closes a connection idle that long in the pool (an active one is timed below); a pooled socket is
      // unref'd by Node, so it never keeps a finished command alive
      agent = new Kind({ keepAlive: true, timeout: this.opts.keepAliveTimeoutMs, scheduling: 'lifo' });
      this.agents.set(key, agent);
    }
    return agent;
  }

  async request(o: SendOptions): Promise<SenderReply> {
    const target = new URL(o.path, o.origin);
    const secure = target.protocol === 'https:';
    // node:https is loaded by an https origin only (a local emulator is plain http)
    if (secure) this.modules.https ??= process.getBuiltinModule('node:https');
    if (o.signal?.aborted) throw abortError();
    const headers: Record<string, string> = { ...o.headers };
    const fixed = typeof o.body === 'string' ? Buffer.from(o.body) : o.body instanceof Uint8Array ? o.body : undefined;
    if (fixed && !hasHeader(headers, 'content-length')) headers['content-length'] = String(fixed.length);
    const options: RequestOptions = {
      protocol: target.protocol,
      hostname: target.hostname.replace(/^\[|\]$/g, ''),
      port: target.port || undefined,
      path: target.pathname + target.search,
      method: o.method,
      headers,
      agent: this.agentFor(secure),
      maxHeaderSize: this.opts.maxHeaderSize,
    };
    const module = secure ? this.modules.https! : this.modules.http;
    return new Promise<SenderReply>((resolve, reject) =>
      new Exchange(o, this.opts.connectTimeoutMs, secure, resolve, reject).start(module, options, fixed),
    );
  }

  async close(): Promise<void> {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}

/** One request and its reply: the timers of its phases, the abort, the failure said once. */
class Exchange {
  private settled = false;
  private res?: IncomingMessage;
  private req?: ClientRequest;
  // one timer at a time: the connection's, then the headers', then the body's
  private timer?: NodeJS.Timeout;
  private timing?: 'connect' | 'headers' | 'body';
  // stops listening for the abort (onAbort: the process's stop without EventTarget's listeners)
  private unlisten = () => {};

  constructor(
    private readonly o: SendOptions,
    private readonly connectTimeoutMs: number,
    private readonly secure: boolean,
    private readonly resolve: (reply: SenderReply) => void,
    private readonly reject: (err: unknown) => void,
  ) {}

  start(
    module: { request(options: RequestOptions): ClientRequest },
    options: RequestOptions,
    fixed: Uint8Array | undefined,
  ): void {
    let req: ClientRequest;
    try {
      req = module.request(options);
    } catch (err) {
      // a header Node refuses (a control character in it): nothing was sent
      return this.reject(err);
    }
    this.req = req;
    if (this.o.signal) this.unlisten = onAbort(this.o.signal, () => this.fail(abortError()));
    req.on('error', (err) => this.fail(err));
    req.once('socket', (socket) => {
      // a new connection (not one from the pool) has connectTimeoutMs to connect, TLS handshake included
      if (!socket.connecting) return;
      this.arm('connect', this.connectTimeoutMs, () =>
        this.fail(codedError('Connect Timeout Error', 'UND_ERR_CONNECT_TIMEOUT', 'ConnectTimeoutError')),
      );
      socket.once(this.secure ? 'secureConnect' : 'connect', () => {
        if (this.timing === 'connect') this.clearTimer();
      });
    });
    // the headers' time runs once the request is sent, as undici's headersTimeout
    req.once('finish', () => {
      if (this.res) return;
      this.arm('headers', this.o.headersTimeout, () =>
        this.fail(codedError('Headers Timeout Error', 'UND_ERR_HEADERS_TIMEOUT', 'HeadersTimeoutError')),
      );
    });
    req.once('response', (reply: IncomingMessage) => this.answered(reply));
    this.send(req, fixed);
  }

  private send(req: ClientRequest, fixed: Uint8Array | undefined): void {
    const body = this.o.body;
    if (fixed) req.end(fixed);
    else if (body === undefined || body === null) req.end();
    else {
      const source = isReadable(body) ? body : Readable.from(body as AsyncIterable<Uint8Array>);
      // a body that fails (a file that cannot be read) fails the request with its error, as with undici
      pipeline(source, req, (err) => {
        if (err && !this.res) this.fail(err);
      });
    }
  }

  private answered(reply: IncomingMessage): void {
    this.res = reply;
    this.settled = true;
    // the body's time: no byte for bodyTimeout while the reader waits for one (a reader that is behind, with bytes
    // buffered, is not a stalled server)
    const stall = () => {
      if (reply.readableLength > 0) return this.arm('body', this.o.bodyTimeout, stall);
      this.fail(codedError('Body Timeout Error', 'UND_ERR_BODY_TIMEOUT', 'BodyTimeoutError'));
    };
    this.arm('body', this.o.bodyTimeout, stall);
    // bytes arriving on the socket (a 'data' listener on the reply would start it flowing before its reader)
    const socket = reply.socket;
    const arrived = () => this.timer?.refresh();
    socket?.on('data', arrived);
    const done = () => {
      this.clearTimer();
      socket?.off('data', arrived);
      this.unlisten();
    };
    reply.once('end', done);
    reply.once('close', done);
    this.resolve({ statusCode: reply.statusCode ?? 0, headers: reply.headers, body: asReplyBody(reply) });
  }

  private fail(err: Error): void {
    this.clearTimer();
    this.unlisten();
    if (this.res) {
      if (!this.res.complete) this.res.destroy(err);
    } else if (!this.settled) {
      this.settled = true;
      this.reject(err);
    }
    this.req?.destroy();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timing = undefined;
  }

  private arm(phase: Exchange['timing'], ms: number, onTimeout: () => void): void {
    this.clearTimer();
    this.timing = phase;
    if (ms > 0) this.timer = setTimeout(onTimeout, ms);
  }
}

function prematureClose(): Error {
  return codedError('Premature close', 'ERR_STREAM_PREMATURE_CLOSE');
}

function abortError(): Error {
  return codedError('Request aborted', 'UND_ERR_ABORTED', 'AbortError');
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

function isReadable(v: unknown): v is NodeJS.ReadableStream {
  return typeof (v as NodeJS.ReadableStream | undefined)?.pipe === 'function';
}

/** The reply as the body net/http.ts reads: the stream itself, with undici's text() and dump(). */
function asReplyBody(reply: IncomingMessage): ReplyBody {
  return Object.assign(reply, {
    // by its events, not `for await`: the stream's async iterator is ~25 functions of Node's streams, compiled
    // anew by every run (Node's code cache lacks them), ~4 M instructions of each request command
    text(): Promise<string> {
      return new Promise<string>((resolve, reject) => {
        if (reply.readableEnded) return resolve('');
        if (reply.destroyed) return reject(reply.errored ?? prematureClose());
        const chunks: Buffer[] = [];
        reply.on('data', (chunk: Buffer) => chunks.push(chunk));
        reply.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        reply.once('error', reject);
        // destroyed without an error before its end: what the iterator throws then
        reply.once('close', () => {
          if (!reply.readableEnded) reject(reply.errored ?? prematureClose());
        });
      });
    },
    dump(): Promise<void> {
      return new Promise<void>((resolve) => {
        if (reply.destroyed || reply.readableEnded) return resolve();
        let read = 0;
        reply.on('error', () => {});
        reply.once('close', () => resolve());
        reply.once('end', () => resolve());
        reply.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > DUMP_LIMIT) reply.destroy();
        });
        reply.resume();
      });
    },
  });
}
