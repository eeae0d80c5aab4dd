// Issue 26 item 15: rate limits to test back-off against — the sliding minute of requests and tokens, the 429 with
// Retry-After and x-ratelimit-* headers, per-key limits, and the flags' checks (svc-emulator serve --rate-limit).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { parseRateLimit, RateLimiter } from '../src/state/rate-limit.js';
import { startTestEmulator, type TestEmulator } from 'svc-emulator/testing';
import { capturingStderr } from './stderr.js';

describe('RateLimiter', () => {
  it('admits RPM requests per sliding minute, then refuses until the oldest has left it', () => {
    const rl = new RateLimiter();
    rl.limit = { rpm: 2 };
    expect(rl.admit('k', undefined, 1, 0)).toMatchObject({ ok: true });
    expect(rl.admit('k', undefined, 1, 10_000).headers).toMatchObject({
      'x-ratelimit-limit-requests': '2',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '50s',
    });
    const refused = rl.admit('k', undefined, 1, 20_000);
    expect(refused).toMatchObject({ ok: false, message: expect.stringContaining('2 requests per minute') });
    expect(refused.headers['retry-after']).toBe('40');
    expect(rl.admit('other', undefined, 1, 20_000).ok).toBe(true);
    expect(rl.admit('k', undefined, 1, 60_001).ok).toBe(true);
    expect(rl.admit('k', undefined, 1, 60_002).ok).toBe(false);
    rl.reset();
    expect(rl.admit('k', undefined, 1, 60_003).ok).toBe(true);
  });

  it('counts tokens per minute; a key’s own limit wins', () => {
    const rl = new RateLimiter();
    rl.limit = { rpm: 100, tpm: 1000 };
    expect(rl.admit('k', undefined, 600, 0).headers['x-ratelimit-remaining-tokens']).toBe('400');
    const over = rl.admit('k', undefined, 500, 30_000);
    expect(over).toMatchObject({ ok: false, message: expect.stringContaining('1000 tokens per minute') });
    expect(over.headers['retry-after']).toBe('30');
    const never = rl.admit('j', undefined, 1001, 0);
    expect(never).toMatchObject({ ok: false, message: expect.stringContaining('more than 1000 tokens per minute') });
    expect(rl.admit('own', { rpm: 1 }, 1, 0).ok).toBe(true);
    expect(rl.admit('own', { rpm: 1 }, 1, 1).ok).toBe(false);
    expect(new RateLimiter().admit('k', undefined, 1, 0)).toEqual({ ok: true, headers: {} });
  });

  it('parses RPM[,TPM] and refuses anything else, naming the part', () => {
    expect(parseRateLimit('60')).toEqual({ rpm: 60 });
    expect(parseRateLimit('60,100000')).toEqual({ rpm: 60, tpm: 100000 });
    for (const [bad, reason] of [
      ['0', /RPM must be an integer from 1 to 1000000/],
      ['x', /RPM must be/],
      ['1.5', /RPM must be/],
      ['60,', /TPM must be an integer from 1 to 1000000000/],
      ['60,0', /TPM must be/],
      ['1,2,3', /at most two numbers/],
      ['', /RPM must be/],
    ] as const)
      expect(() => parseRateLimit(bad), bad).toThrow(reason);
  });
});

describe('an emulator with limits', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({ rateLimit: { rpm: 2 } });
  });
  afterAll(() => emu.close());

  it('answers 429 with the JSON error, Retry-After and headers; admin routes are never limited', async () => {
    const get = () => fetch(`${emu.url}/v1/models`, { headers: { authorization: `Bearer ${emu.key}` } });
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(200);
    const r = await get();
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await r.json()).toMatchObject({ error: expect.stringContaining('Rate limit exceeded') });
    for (let i = 0; i < 5; i++) expect((await fetch(`${emu.url}/_emulator/health`)).status).toBe(200);
  });

  it('keys carry their own limit; a malformed one is refused (400)', async () => {
    const post = (body: unknown) =>
      fetch(`${emu.url}/_emulator/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const ok = await post({ rate_limit: { rpm: 5, tpm: 100 } });
    expect(((await ok.json()) as { rate_limit: unknown }).rate_limit).toEqual({ rpm: 5, tpm: 100 });
    const bad = await post({ rate_limit: 'lots' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Invalid value for `rate_limit`: RPM must be');
  });

  it('svc-emulator serve refuses a malformed --rate-limit (exit 2)', async () => {
    let code: number | undefined;
    const said = await capturingStderr(async () => {
      code = await main(['serve', '--port', '0', '--rate-limit', '0,5']);
    });
    expect(code).toBe(2);
    expect(said).toContain('--rate-limit: "0,5" is not allowed: RPM must be an integer from 1 to 1000000');
  });
});
