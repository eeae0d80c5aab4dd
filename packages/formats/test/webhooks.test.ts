import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSecret, secretBytes, sign, signedHeaders, verify, WebhookVerificationError } from '../src/webhooks.js';

describe('Standard Webhooks signatures', () => {
  const key = Buffer.from('0123456789abcdef0123456789abcdef');
  const secret = `whsec_${key.toString('base64')}`;
  const body = '{"type":"realtime.call.incoming"}';

  it('signs v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}"> with the base64-decoded whsec_ key', () => {
    const expected = createHmac('sha256', key).update(`evt_1.1700000000.${body}`).digest('base64');
    expect(sign(secret, 'evt_1', 1700000000, body)).toBe(`v1,${expected}`);
    expect(secretBytes(secret)).toEqual(key);
    // a secret without the prefix is used as its UTF-8 bytes
    expect(sign('plain', 'evt_1', 1, 'x')).toBe(
      `v1,${createHmac('sha256', 'plain').update('evt_1.1.x').digest('base64')}`,
    );
    expect(generateSecret()).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  });

  it('verifies a delivery, among several signatures, and refuses tampering, old timestamps and missing headers', () => {
    const now = 1_700_000_000;
    const h = signedHeaders(secret, 'evt_2', body, now);
    expect(() => verify(secret, h, body, { nowSec: now + 10 })).not.toThrow();
    expect(() =>
      verify(secret, { ...h, 'webhook-signature': `v1,AAAA ${h['webhook-signature']}` }, body, { nowSec: now }),
    ).not.toThrow();
    expect(() => verify(secret, h, `${body} `, { nowSec: now })).toThrow(/no webhook signature matches/);
    expect(() => verify(secret, { ...h, 'webhook-id': 'evt_3' }, body, { nowSec: now })).toThrow(
      WebhookVerificationError,
    );
    expect(() => verify(secret, h, body, { nowSec: now + 301 })).toThrow(/more than 300 s away/);
    expect(() => verify(secret, { 'webhook-id': 'evt_2' }, body)).toThrow(/missing/);
    expect(() => verify(secret, { ...h, 'webhook-timestamp': 'soon' }, body)).toThrow(/not a number/);
  });
});
