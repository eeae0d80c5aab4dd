// The client without a proxy, CA setting or client certificate: node:http (src/net/direct-http.ts) under net/http's
// contract, against real loopback servers: timeouts classified as undici's were, an abort, a cut, streamed request
// bodies, a reader that is late or slow, keep-alive.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getEventListeners } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { InterruptedError, NetworkError } from '../../src/core/errors.js';
import { processStop } from '../../src/core/signals.js';
import { HttpClient } from '../../src/net/http.js';

let servers: Server[] = [];
afterEach(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  servers = [];
});

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A loopback server; `connections` counts the TCP connections it accepted. */
async function serve(handler: Handler): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = createServer(handler);
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

const client = (baseUrl: string, extra: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) =>
  new HttpClient({ baseUrl, apiKey: 'k', userAgent: 't', timeoutMs: 5000, maxRetries: 0, ...extra });

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err as Error,
  );

describe('the direct client (node:http)', () => {
  it('keeps one connection for successive requests, and reads bodies, statuses and headers', async () => {
    const srv = await serve((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-request-id', 'req-1');
      res.end(JSON.stringify({ path: req.url, auth: req.headers.authorization }));
    });
    const c = client(srv.url);
    for (let i = 0; i < 3; i++)
      expect(await c.json('GET', '/v1/models', { query: { i } })).toEqual({
        path: `/v1/models?i=${i}`,
        auth: 'Bearer k',
      });
    const res = await c.request({ method: 'GET', path: '/x' });
    expect([res.status, res.requestId]).toEqual([200, 'req-1']);
    await res.body.dump();
    expect(srv.connections()).toBe(1);
    await c.close();
  });

  it('a server that never answers: the headers timeout, worded as before (no retry of a POST)', async () => {
    const srv = await serve(() => {});
    const err = await failure(client(srv.url, { timeoutMs: 300 }).json('POST', '/v1/chat/completions', { json: {} }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toBe(`${new URL(srv.url).host} did not answer in time (see --timeout)`);
  });

  it('a body that stalls is "stalled", a body cut is "lost"; a reader late or slow loses nothing', async () => {
    const srv = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write('first ');
      if (req.url === '/stall') return;
      if (req.url === '/cut') return void setTimeout(() => res.socket?.destroy(), 50);
      // a slow stream: each chunk within the timeout, the whole well past it
      let n = 0;
      const t = setInterval(() => {
        if (++n === 6) {
          clearInterval(t);
          res.end('last');
        } else res.write(`${n} `);
      }, 100);
    });
    const c = client(srv.url, { timeoutMs: 300 });
    const stalled = await c.request({ method: 'GET', path: '/stall' });
    expect((await failure(stalled.text())).message).toBe('the stream stalled (no data within --timeout)');
    const cut = await c.request({ method: 'GET', path: '/cut' });
    expect((await failure(cut.text())).message).toBe('the connection was lost in the middle of the stream');
    // read only after 400 ms (more than the timeout): the bytes wait in the buffer, none is lost to a reader not there
    const late = await c.request({ method: 'GET', path: '/slow' });
    await new Promise((r) => setTimeout(r, 400));
    const chunks: string[] = [];
    for await (const chunk of late.body) {
      chunks.push(Buffer.from(chunk).toString());
      // a reader slower than the timeout, with bytes buffered, is not a stalled server
      await new Promise((r) => setTimeout(r, 350));
    }
    expect(chunks.join('')).toBe('first 1 2 3 4 5 last');
  });

  it.each([
    ['an AbortController', () => new AbortController(), 1],
    ["the process's stop, no 'abort' listener", processStop, 0],
  ])(
    'Ctrl-C (%s) interrupts a request waiting for its answer and one whose body is being read',
    async (_, stop, listeners) => {
      let arrived = () => {};
      const waited = new Promise<void>((r) => (arrived = r));
      const srv = await serve((req, res) => {
        if (req.url === '/wait') return arrived();
        res.writeHead(200);
        res.write('part');
      });
      const c = client(srv.url);
      const waiting = stop();
      const pending = failure(c.request({ method: 'GET', path: '/wait', signal: waiting.signal }));
      await waited;
      expect(getEventListeners(waiting.signal, 'abort')).toHaveLength(listeners);
      setTimeout(() => waiting.abort(), 50);
      expect(await pending).toBeInstanceOf(InterruptedError);
      const reading = stop();
      const res = await c.request({ method: 'GET', path: '/body', signal: reading.signal });
      const text = failure(res.text());
      setTimeout(() => reading.abort(), 50);
      expect(await text).toBeInstanceOf(Error);
      expect(res.body.destroyed).toBe(true);
    },
  );

  it('sends a streamed body (a factory, sent again on a retry) chunked, and bytes with their length', async () => {
    const got: { body: string; te?: string; length?: string }[] = [];
    let calls = 0;
    const srv = await serve((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push({ body, te: req.headers['transfer-encoding'], length: req.headers['content-length'] });
        if (++calls === 1) return void res.writeHead(429, { 'retry-after': '0' }).end('{}');
        res.end('{}');
      });
    });
    const c = client(srv.url, { maxRetries: 1, sleep: async () => {} });
    async function* parts() {
      yield new TextEncoder().encode('a,');
      yield new TextEncoder().encode('b');
    }
    await c.request({ method: 'POST', path: '/up', body: parts });
    await c.request({ method: 'POST', path: '/up', body: new TextEncoder().encode('bytes') });
    expect(got).toEqual([
      { body: 'a,b', te: 'chunked', length: undefined },
      { body: 'a,b', te: 'chunked', length: undefined },
      { body: 'bytes', te: undefined, length: '5' },
    ]);
  });

  it('a body that fails to read fails the request with its error, and nothing hangs', async () => {
    const srv = await serve((req, res) => {
      req.resume();
      req.on('end', () => res.end('{}'));
    });
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield new TextEncoder().encode('a');
      throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
    }
    const err = await failure(client(srv.url).request({ method: 'POST', path: '/up', body: broken }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toMatch(/EIO/);
  });

  it('a refused connection of a POST is retried (nothing reached the server), then worded', async () => {
    const srv = await serve(() => {});
    const port = new URL(srv.url).port;
    const s = servers.pop()!;
    await new Promise((r) => s.close(r));
    const notes: string[] = [];
    const c = client(`http://127.0.0.1:${port}`, {
      maxRetries: 1,
      sleep: async () => {},
      onRetry: (n) => notes.push(n),
    });
    const err = await failure(c.json('POST', '/v1/x', { json: {} }));
    expect(err.message).toBe(`cannot connect to 127.0.0.1:${port}: connection refused`);
    expect(notes).toEqual([expect.stringMatching(/^note: ECONNREFUSED on POST \/v1\/x; retrying in/)]);
  });

  it('an idle kept connection does not hold a finished process open', async () => {
    const srv = await serve((_req, res) => res.end('{}'));
    const c = client(srv.url);
    const res = await c.request({ method: 'GET', path: '/a' });
    const socket = (res.body as unknown as { socket: Socket & { _handle: { hasRef(): boolean } } }).socket;
    // (net.Socket says whether it holds the loop only through its handle)
    expect(socket._handle.hasRef()).toBe(true);
    await res.text();
    await new Promise((r) => setImmediate(r));
    // back in node:http's pool, open for the next request, and unref'd
    expect([socket.destroyed, socket._handle.hasRef()]).toEqual([false, false]);
    await c.close();
  });
});
