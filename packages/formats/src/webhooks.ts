// Standard Webhooks signatures: headers webhook-id, webhook-timestamp and
// webhook-signature `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`. A secret with the `whsec_`
// prefix carries its key base64-encoded after the prefix; any other secret is used as its UTF-8 bytes.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** Signatures older or newer than this are refused (replay protection). */
export const DEFAULT_TOLERANCE_SEC = 5 * 60;

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

// a type, not an interface: it is then a Record<string, string> (an interface has no implicit index signature)
export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

export function secretBytes(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX)
    ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/** A fresh signing secret: `whsec_` + base64 of 24 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

/** The `v1,<base64>` signature of one delivery. */
export function sign(secret: string, id: string, timestamp: number | string, body: string | Buffer): string {
  const mac = createHmac('sha256', secretBytes(secret));
  mac.update(`${id}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/** The three headers of a delivery. */
export function signedHeaders(
  secret: string,
  id: string,
  body: string | Buffer,
  timestamp = Math.floor(Date.now() / 1000),
): WebhookHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign(secret, id, timestamp, body),
  };
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Check a delivery: the timestamp is within `toleranceSec` of now and one of the space-separated `v1,…`
 * signatures matches. Throws a WebhookVerificationError saying what is wrong.
 */
export function verify(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string | Buffer,
  opts: { toleranceSec?: number; nowSec?: number } = {},
): void {
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const sigs = header(headers, 'webhook-signature');
  if (!id || !ts || !sigs)
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d+$/.test(ts)) throw new WebhookVerificationError(`webhook-timestamp is not a number of seconds: ${ts}`);
  const now = opts.nowSec ?? Math.floor(Date.now() / 1000);
  const tolerance = opts.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  if (Math.abs(now - Number(ts)) > tolerance)
    throw new WebhookVerificationError(`webhook-timestamp ${ts} is more than ${tolerance} s away from now`);
  const expected = Buffer.from(sign(secret, id, ts, body).slice(3), 'base64');
  for (const entry of sigs.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const got = Buffer.from(value, 'base64');
    if (got.length === expected.length && timingSafeEqual(got, expected)) return;
  }
  throw new WebhookVerificationError('no webhook signature matches (wrong secret, or the body was changed)');
}
