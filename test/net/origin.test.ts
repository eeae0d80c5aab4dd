// The key stays with its host (issue 25, item 1), on HTTP and on WebSocket: the API key goes only to the base URL's
// origin (scheme, host and port: gh's rule), another origin is refused with exit 2 unless the request asked to go
// without the key (`svc api --no-auth`); plain http:// (ws://) only to loopback unless SVC_ALLOW_INSECURE_HTTP=1, for
// every URL svc connects to. Checked at the chokepoints (net/http, net/ws) before anything connects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { PreconditionError, UsageError } from '../../src/core/errors.js';
import { HttpClient } from '../../src/net/http.js';
import { checkDestination } from '../../src/net/origin.js';
import { connectWs } from '../../src/net/ws.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';

/** A server on another origin (another port of loopback) that notes every request and upgrade it gets. */
class OtherOrigin {
  readonly seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  private constructor(
    private readonly server: Server,
    private readonly wss: WebSocketServer,
  ) {}
  static async start(): Promise<OtherOrigin> {
    const server = createServer();
    const wss = new WebSocketServer({ server });
    const o = new OtherOrigin(server, wss);
    server.on('request', (req, res) => {
      o.seen.push({ url: req.url ?? '', headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    wss.on('connection', (_ws, req) => o.seen.push({ url: req.url ?? '', headers: req.headers }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    return o;
  }
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }
  close(): Promise<void> {
    this.wss.close();
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

let emu: TestEmulator;
let other: OtherOrigin;
beforeAll(async () => {
  emu = await startTestEmulator();
  other = await OtherOrigin.start();
});
afterAll(async () => {
  await other.close();
  await emu.close();
});

/** TEST-NET-3: never routed, so a request that went out would hang, not answer */
const FAR = 'http://203.0.113.9';

describe('the rule (net/origin.ts)', () => {
  const base = 'https://api.svc.ai';
  const ok = (url: string, withKey = true, allowInsecureHttp = false) =>
    expect(() => checkDestination(url, { baseUrl: base, withKey, allowInsecureHttp })).not.toThrow();
  const refused = (url: string, withKey = true, allowInsecureHttp = false) =>
    expect(() => checkDestination(url, { baseUrl: base, withKey, allowInsecureHttp })).toThrow(UsageError);

  it('the key goes to the base URL origin only: scheme, host and port all count', () => {
    ok('https://api.svc.ai/v1/models');
    ok('https://API.svc.ai:443/other/path');
    ok('wss://api.svc.ai/v1/realtime');
    refused('https://evil.example/v1/models');
    refused('https://api.svc.ai.evil.example/');
    refused('https://api.svc.ai:8443/v1/models');
    refused('http://api.svc.ai/v1/models', true, true);
    refused('wss://evil.example/v1/realtime');
  });

  it('another origin without the key is allowed; plain http only to loopback unless allowed', () => {
    ok('https://status.example.com/', false);
    refused(`${FAR}/x`, false);
    ok(`${FAR}/x`, false, true);
    refused('ws://203.0.113.9/x', false);
    ok('http://127.0.0.1:9/x', false);
    ok('http://localhost:9/x', false);
    ok('ws://[::1]:9/x', false);
  });

  it('a refusal after something was sent is exit 1 (PreconditionError), not "nothing was sent"', () => {
    expect(() =>
      checkDestination(`${FAR}/image.png`, {
        baseUrl: base,
        withKey: false,
        allowInsecureHttp: false,
        sentBefore: true,
      }),
    ).toThrow(PreconditionError);
  });
});

describe('HTTP: svc api with a full URL', () => {
  it('the base URL origin, given in full, gets the key', async () => {
    const r = await svcInProcess(['api', `${emu.url}/v1/models/svc-4`], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe('svc-4');
  });

  it('another origin is refused (exit 2) and gets nothing, not even a connection', async () => {
    const before = other.seen.length;
    for (const url of [
      `http://127.0.0.1:${other.port}/v1/models`,
      // the same server by another name is another origin
      emu.url.replace('127.0.0.1', 'localhost'),
    ]) {
      const r = await svcInProcess(['api', url], { emu });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/is not the API's origin \(http:\/\/127\.0\.0\.1:\d+.*sends the API key only there/);
      expect(r.stderr).toMatch(/--no-auth/);
    }
    expect(other.seen.length).toBe(before);
  });

  it('--no-auth sends the request to another origin without the key', async () => {
    const r = await svcInProcess(['api', '--no-auth', `http://127.0.0.1:${other.port}/health`], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true });
    const got = other.seen.at(-1)!;
    expect(got.url).toBe('/health');
    expect(got.headers.authorization).toBeUndefined();
  });

  it('plain http:// off loopback is refused for a full URL too (exit 2, before connecting)', async () => {
    const r = await svcInProcess(['api', '--no-auth', `${FAR}/health`], { emu });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/http:\/\/ to 203\.0\.113\.9 is refused: the exchange would cross the network in clear/);
    expect(r.stderr).toMatch(/SVC_ALLOW_INSECURE_HTTP=1/);
  });
});

describe('HTTP: every URL the client connects to (a URL a reply gave: an image, a video)', () => {
  const client = () =>
    new HttpClient({ baseUrl: emu.url, apiKey: emu.key, userAgent: 'test', timeoutMs: 5000, maxRetries: 0 });

  it('plain http off loopback is refused, exit 1 once the run has sent something', async () => {
    const c = client();
    await expect(c.request({ method: 'GET', path: `${FAR}/image.png`, auth: false })).rejects.toThrow(UsageError);
    await c.json('GET', '/v1/models');
    await expect(c.request({ method: 'GET', path: `${FAR}/image.png`, auth: false })).rejects.toThrow(
      PreconditionError,
    );
    await c.close();
  });

  it('a URL on another origin never gets the key: refused unless the request goes without it', async () => {
    const c = client();
    const before = other.seen.length;
    await expect(c.request({ method: 'GET', path: `http://127.0.0.1:${other.port}/x` })).rejects.toThrow(
      /sends the API key only there/,
    );
    expect(other.seen.length).toBe(before);
    const res = await c.request({ method: 'GET', path: `http://127.0.0.1:${other.port}/y`, auth: false });
    await res.text();
    expect(other.seen.at(-1)!.headers.authorization).toBeUndefined();
    await c.close();
  });
});

describe('WebSocket: the same rule at net/ws', () => {
  const open = (baseUrl: string, path: string) =>
    connectWs({ baseUrl, path, apiKey: emu.key, userAgent: 'test', handshakeTimeoutMs: 2000 });

  it('a socket on another origin is refused before connecting: the key is not offered there', async () => {
    const before = other.seen.length;
    await expect(open(emu.url, `ws://127.0.0.1:${other.port}/v1/realtime`)).rejects.toThrow(
      /is not the API's origin.*sends the API key only there/,
    );
    await expect(
      open(emu.url.replace('127.0.0.1', 'localhost'), `ws://127.0.0.1:${other.port}/v1/tts`),
    ).rejects.toThrow(UsageError);
    expect(other.seen.length).toBe(before);
  });

  it('plain ws:// off loopback is refused (exit 2) unless SVC_ALLOW_INSECURE_HTTP=1', async () => {
    await expect(open(FAR, '/v1/realtime')).rejects.toThrow(/ws:\/\/ to 203\.0\.113\.9 is refused: the API key and/);
  });

  it('the API origin itself opens as before', async () => {
    const conn = await open(emu.url, '/v1/tts');
    conn.close();
    await conn.closedPromise();
  });
});
