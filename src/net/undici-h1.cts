// undici's Agent with its request() API and nothing else, for HTTP/1.1. undici's index also builds fetch,
// WebSocket, caches and mocks, and its Client loads the HTTP/2 client, which pulls in node:http2, node:tls and
// node:crypto (~15 ms of every request command, measured in docs/performance.md). svc never offers h2 in ALPN
// (allowH2 is off), so that module is only needed if a server could pick h2: it is replaced by a stub that
// loads it on first call. In the bundle (scripts/bundle.mjs) a plugin does the same at build time.
// The undici version is pinned in package.json; src/net/http.ts falls back to the whole package should this
// layout change.
import type { Socket } from 'node:net';

type Agent = { request: (...args: unknown[]) => unknown };

/** Replaced with true by scripts/bundle.mjs, where a plugin leaves the HTTP/2 client out at build time. */
declare const __SVC_BUNDLE__: boolean | undefined;

function deferHttp2Client(): void {
  let path: string;
  try {
    path = require.resolve('undici/lib/dispatcher/client-h2.js');
  } catch {
    return;
  }
  if (require.cache[path]) return;
  // (node:module only here: the bundle, which never runs this, requires nothing at its top level that a request does
  // not need)
  const Module = require('node:module') as typeof import('node:module');
  const stub = new Module('svc:deferred');
  stub.filename = path;
  stub.loaded = true;
  stub.exports = function connectH2(...args: unknown[]): unknown {
    delete require.cache[path];
    return (require(path) as (...a: unknown[]) => unknown)(...args);
  };
  require.cache[path] = stub;
}

type Connector = (opts: unknown, callback: (err: Error | null, socket: Socket | null) => void) => unknown;

/**
 * @param parserReady settles once undici's parser, compiled ahead (net/http-parser.ts), is there or has failed:
 *   a new connection waits for it before undici takes the socket (and compiles the parser on the main thread).
 */
export function createAgent(options: { connect?: object } = {}, parserReady?: Promise<unknown>): Agent {
  if (typeof __SVC_BUNDLE__ === 'undefined') deferHttp2Client();
  const AgentClass = require('undici/lib/dispatcher/agent.js') as new (o: unknown) => Agent;
  const Dispatcher = require('undici/lib/dispatcher/dispatcher.js') as { prototype: Record<string, unknown> };
  const request = require('undici/lib/api/api-request.js') as unknown;
  if (typeof request !== 'function') throw new Error('unexpected undici layout');
  if (typeof Dispatcher.prototype.request !== 'function') Dispatcher.prototype.request = request;
  if (!parserReady) return new AgentClass(options);
  // undici's own connector, made as its pool would make it from these options
  const buildConnector = require('undici/lib/core/connect.js') as (o: object) => Connector;
  const connect = buildConnector({ ...options.connect });
  let ready = false;
  void parserReady.finally(() => (ready = true));
  const waitingForParser: Connector = (opts, callback) =>
    connect(opts, (err, socket) => {
      if (err || ready || !socket) return callback(err, socket);
      // an error meanwhile is undici's to report once it has the socket (it checks socket.errored)
      const keep = (): void => {};
      socket.on('error', keep);
      void parserReady.finally(() => {
        socket.off('error', keep);
        callback(null, socket);
      });
    });
  return new AgentClass({ ...options, connect: waitingForParser });
}
