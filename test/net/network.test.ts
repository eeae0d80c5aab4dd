// The proxy decision (curl's NO_PROXY rules, lower case before upper, --proxy over the environment, loopback never
// proxied by the environment), the redaction of proxy passwords, and that a run with no network settings loads
// none of it (no measurable cost: docs/performance.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networkConfigured, redactCredentials } from '../../src/net/http.js';
import { noProxyMatches, proxyFor } from '../../src/net/network.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { ROOT, tempDir } from '../helpers/files.js';
import { svcProcess } from '../helpers/subprocess.js';

describe("NO_PROXY: curl's rules", () => {
  const cases: [string, number, string, boolean][] = [
    ['api.example.com', 443, 'example.com', true],
    ['api.example.com', 443, '.example.com', true],
    ['example.com', 443, '.example.com', true],
    ['badexample.com', 443, 'example.com', false],
    ['api.example.com', 443, '*', true],
    ['api.example.com', 443, 'other.org, example.com', true],
    ['api.example.com', 443, 'other.org example.com', true],
    ['api.example.com', 443, 'example.com:443', true],
    ['api.example.com', 8443, 'example.com:443', false],
    ['10.1.2.3', 443, '10.1.2.3', true],
    ['10.1.2.3', 443, '10.1.2.4', false],
    ['10.1.2.3', 443, '10.0.0.0/8', true],
    ['11.1.2.3', 443, '10.0.0.0/8', false],
    ['::1', 443, '::1', true],
    ['[::1]', 443, '[::1]:443', true],
    ['API.Example.COM', 443, 'example.com', true],
    ['api.example.com', 443, '', false],
    ['api.example.com', 443, '*.example.com', true],
  ];
  it.each(cases)('%s:%i with NO_PROXY=%j → %s', (host, port, list, expected) => {
    expect(noProxyMatches(host, port, list)).toBe(expected);
  });
});

describe('which proxy applies', () => {
  const api = new URL('https://api.example.com/v1/models');
  const plain = new URL('http://api.example.com/v1/models');
  const wss = new URL('wss://api.example.com/v1/tts');

  it('https_proxy before HTTPS_PROXY for https and wss; http_proxy before HTTP_PROXY for http', () => {
    const env = {
      https_proxy: 'http://lower:3128',
      HTTPS_PROXY: 'http://upper:3128',
      HTTP_PROXY: 'http://plain:3128',
    };
    expect(proxyFor(api, { env })).toBe('http://lower:3128');
    expect(proxyFor(wss, { env })).toBe('http://lower:3128');
    expect(proxyFor(plain, { env })).toBe('http://plain:3128');
    expect(proxyFor(api, { env: { HTTPS_PROXY: 'upper:3128' } })).toBe('http://upper:3128');
    expect(proxyFor(api, { env: {} })).toBeUndefined();
  });

  it('--proxy (or the proxy key) goes before the environment; an empty one turns proxies off', () => {
    const env = { HTTPS_PROXY: 'http://env:3128' };
    expect(proxyFor(api, { env, proxy: 'http://flag:8080' })).toBe('http://flag:8080');
    expect(proxyFor(api, { env, proxy: '' })).toBeUndefined();
  });

  it('NO_PROXY (no_proxy first) bypasses either', () => {
    expect(proxyFor(api, { env: { NO_PROXY: 'example.com' }, proxy: 'http://flag:8080' })).toBeUndefined();
    expect(proxyFor(api, { env: { HTTPS_PROXY: 'http://env:3128', no_proxy: '.example.com' } })).toBeUndefined();
    expect(proxyFor(api, { env: { HTTPS_PROXY: 'http://env:3128', no_proxy: 'x.org', NO_PROXY: '*' } })).toBe(
      'http://env:3128',
    );
  });

  it("the environment's proxy never carries loopback traffic; an explicit one does unless NO_PROXY says so", () => {
    const env = { HTTPS_PROXY: 'http://env:3128', HTTP_PROXY: 'http://env:3128' };
    for (const u of ['http://127.0.0.1:8080/', 'https://localhost/', 'http://[::1]:9/', 'http://127.1.2.3/'])
      expect(proxyFor(new URL(u), { env }), u).toBeUndefined();
    expect(proxyFor(new URL('http://127.0.0.1:8080/'), { env, proxy: 'http://p:1' })).toBe('http://p:1');
  });

  it('a proxy that is not an http(s) URL is a usage error naming the setting, without its password', () => {
    expect(() => proxyFor(api, { env: { HTTPS_PROXY: 'socks5://u:pw-secret@h:1' } })).toThrow(
      /HTTPS_PROXY: only http:\/\/ and https:\/\/ proxies/,
    );
    expect(() => proxyFor(api, { env: {}, proxy: 'http://u:pw-secret@[bad' })).toThrow(
      /--proxy: "http:\/\/u:\[REDACTED\]@\[bad" is not a proxy URL/,
    );
  });

  it('proxy passwords are redacted; nothing to decide without settings', () => {
    expect(redactCredentials('via http://alice:s3cret@127.0.0.1:3128 now')).toBe(
      'via http://alice:[REDACTED]@127.0.0.1:3128 now',
    );
    expect(networkConfigured({ env: { PATH: '/bin', HOME: '/root' } })).toBe(false);
    expect(networkConfigured({ env: {}, proxy: '' })).toBe(true);
    expect(networkConfigured({ env: { SSL_CERT_FILE: '/x.pem' } })).toBe(true);
  });
});

describe('no settings, no cost', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => emu.close());

  it('a request with no proxy, CA or client certificate loads neither net/network nor a proxy agent', async () => {
    const tracer = join(ROOT, 'test/fixtures/trace-imports.cjs');
    const loaded = async (env: Record<string, string>) => {
      const trace = join(tempDir(), 'imports.txt');
      const r = await svcProcess(['models', 'list'], {
        emu,
        nodeArgs: ['--require', tracer],
        env: { SVC_TRACE_IMPORTS: trace, ...env },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      return readFileSync(trace, 'utf8')
        .split('\n')
        .filter((u) => /network|tls-errors|proxy-agent|undici\/index\.js/.test(u));
    };
    expect(await loaded({})).toEqual([]);
    // the same run with a proxy set that does not apply (loopback) does load the decision
    expect((await loaded({ HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9' })).length).toBe(1);
  });
});
