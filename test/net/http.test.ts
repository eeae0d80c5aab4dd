import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, NetworkError } from '../../src/core/errors.js';
import { HttpClient, backoffMs, parseRetryAfter, shouldRetry } from '../../src/net/http.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/** the ApiError a call fails with (success or any other error fails the test) */
async function apiError(call: Promise<unknown>): Promise<ApiError> {
  const e = await call.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(e)}`);
  return e;
}

describe('retry policy', () => {
  it('retries 429 for every method and 408/409/5xx only for GET', () => {
    for (const m of ['GET', 'POST', 'PATCH', 'DELETE']) expect(shouldRetry(m, 429)).toBe(true);
    for (const s of [408, 409, 500, 502, 503, 504]) {
      expect(shouldRetry('GET', s)).toBe(true);
      expect(shouldRetry('POST', s)).toBe(false);
    }
    expect(shouldRetry('GET', 400)).toBe(false);
    expect(shouldRetry('GET', 404)).toBe(false);
  });

  it('reads Retry-After as seconds or an HTTP date, capped at 60 s', () => {
    expect(parseRetryAfter('1')).toBe(1000);
    expect(parseRetryAfter('2.5')).toBe(2500);
    expect(parseRetryAfter('3600')).toBe(60_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('garbage')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('backs off exponentially with jitter, capped', () => {
    expect(backoffMs(0, () => 0)).toBe(500);
    expect(backoffMs(1, () => 0)).toBe(1000);
    expect(backoffMs(2, () => 0.999)).toBeGreaterThan(1500);
    expect(backoffMs(2, () => 0.999)).toBeLessThan(2000);
    expect(backoffMs(10, () => 0)).toBe(8000);
  });
});

describe('HttpClient against the emulator', () => {
  let emu: TestEmulator;
  const sleeps: number[] = [];
  const client = () =>
    new HttpClient({
      baseUrl: emu.url,
      apiKey: emu.key,
      userAgent: 'test',
      timeoutMs: 5000,
      maxRetries: 2,
      sleep: async (ms) => void sleeps.push(ms),
    });
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => emu.close());

  it('honours Retry-After on a 429, then succeeds', async () => {
    sleeps.length = 0;
    emu.faults.add({ kind: 'status', status: 429, retryAfter: '1', path: '^/v1/models$' });
    const res = await client().json<{ data: unknown[] }>('GET', '/v1/models');
    expect(res.data.length).toBeGreaterThan(0);
    expect(sleeps).toEqual([1000]);
  });

  it('does not retry a 500 on POST; gives up on GET after max retries with the request id', async () => {
    sleeps.length = 0;
    emu.faults.add({ kind: 'status', status: 500, path: '/v1/chat/completions' });
    emu.clearRequests();
    const err = await apiError(
      client().json('POST', '/v1/chat/completions', {
        json: { model: 'svc-4', messages: [{ role: 'user', content: 'x' }] },
      }),
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(500);
    expect(emu.requests()).toHaveLength(1);
    expect(sleeps).toHaveLength(0);

    emu.faults.add({ kind: 'status', status: 503, path: '^/v1/models$', times: 3 });
    emu.clearRequests();
    const err2 = await apiError(client().json('GET', '/v1/models'));
    expect(err2.status).toBe(503);
    expect(err2.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(emu.requests()).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('removes the key from a server message that quotes it, and from every --verbose trace line', async () => {
    emu.faults.add({
      kind: 'status',
      status: 400,
      message: `the key ${emu.key} is not allowed here`,
      path: '^/v1/models$',
    });
    const trace: string[] = [];
    const c = new HttpClient({
      baseUrl: emu.url,
      apiKey: emu.key,
      userAgent: 'test',
      timeoutMs: 5000,
      maxRetries: 0,
      trace: (l) => trace.push(l),
    });
    const err = await apiError(c.json('GET', '/v1/models'));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toContain('the key [REDACTED] is not allowed here');
    expect(err.message).not.toContain(emu.key);
    expect(trace.length).toBeGreaterThan(0);
    expect(trace.join('\n')).not.toContain(emu.key);
  });

  it('reports a refused connection as a network error', async () => {
    const c = new HttpClient({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'k',
      userAgent: 't',
      timeoutMs: 2000,
      maxRetries: 0,
    });
    await expect(c.json('GET', '/v1/models')).rejects.toBeInstanceOf(NetworkError);
  });
});

describe('path segments and request bodies', () => {
  it('encodes ids and refuses ".", ".." and empty ids', async () => {
    const { seg } = await import('../../src/net/http.js');
    expect(seg('a/b?c')).toBe('a%2Fb%3Fc');
    for (const bad of ['.', '..', '']) expect(() => seg(bad)).toThrow(/is not a valid id/);
  });

  it('counts JSON depth without recursion', async () => {
    const { jsonDepth } = await import('../../src/net/http.js');
    expect(jsonDepth({ a: [1, { b: 2 }] })).toBe(3);
    expect(jsonDepth(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)))).toBeGreaterThan(200);
  });
});
