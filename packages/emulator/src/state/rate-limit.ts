// Rate limits to test a client's back-off against (`serve --rate-limit RPM[,TPM]`, `rate_limit` of a key):
// a sliding minute per key of requests and of estimated tokens. A request over either limit is answered 429 with
// Retry-After (seconds until enough of the minute has passed) and x-ratelimit-* headers; refused requests do not
// count. The spec documents no rate-limit headers: these are the common `x-ratelimit-{limit,remaining,reset}-
// {requests,tokens}` names.

export interface RateLimit {
  /** requests per minute */
  rpm: number;
  /** estimated tokens per minute (request body bytes / 4) */
  tpm?: number;
}

const WINDOW_MS = 60_000;
const MAX_RPM = 1_000_000;
const MAX_TPM = 1_000_000_000;

/** `RPM[,TPM]`, e.g. `60` or `60,100000`; throws naming the part that is wrong. */
export function parseRateLimit(spec: string): RateLimit {
  const parts = spec.split(',');
  if (parts.length > 2) throw new Error('RPM[,TPM]: at most two numbers');
  const [rpm, tpm] = parts.map((p, i) => {
    const name = i === 0 ? 'RPM' : 'TPM';
    const max = i === 0 ? MAX_RPM : MAX_TPM;
    const n = /^\d+$/.test(p.trim()) ? Number(p.trim()) : Number.NaN;
    if (!(n >= 1 && n <= max))
      throw new Error(`${name} must be an integer from 1 to ${max} (got ${JSON.stringify(p)})`);
    return n;
  });
  return tpm === undefined ? { rpm: rpm! } : { rpm: rpm!, tpm };
}

/** A fixtures or admin value: the `RPM[,TPM]` string, a number of requests, or `{rpm, tpm}`. */
export function rateLimitOf(v: unknown): RateLimit {
  if (typeof v === 'string') return parseRateLimit(v);
  if (typeof v === 'number') return parseRateLimit(String(v));
  if (v && typeof v === 'object') {
    const o = v as { rpm?: unknown; tpm?: unknown };
    return parseRateLimit(o.tpm === undefined ? String(o.rpm) : `${o.rpm},${o.tpm}`);
  }
  throw new Error('rate_limit is "RPM[,TPM]" or {rpm, tpm}');
}

export type Verdict =
  | { ok: true; headers: Record<string, string> }
  | { ok: false; headers: Record<string, string>; message: string };

export class RateLimiter {
  /** the limit of keys that have none of their own (`--rate-limit`) */
  limit?: RateLimit;
  /**
   * the window the limits count in (a minute); a test or benchmark in this process may shorten it to see a client
   * pace itself through many windows in seconds (the limits then count per window, Retry-After in its seconds)
   */
  windowMs = WINDOW_MS;
  private readonly windows = new Map<string, { at: number; tokens: number }[]>();

  /** Forget what was counted. */
  reset(): void {
    this.windows.clear();
  }

  /**
   * Count a request of `tokens` by `key` (limited by `own`, else the default limit) at `now` (ms), or refuse it.
   * Headers for the reply either way.
   */
  admit(key: string, own: RateLimit | undefined, tokens: number, now: number): Verdict {
    const limit = own ?? this.limit;
    if (!limit) return { ok: true, headers: {} };
    const window = (this.windows.get(key) ?? []).filter((e) => e.at > now - this.windowMs);
    this.windows.set(key, window);
    const used = window.reduce((n, e) => n + e.tokens, 0);
    const overRequests = window.length >= limit.rpm;
    const overTokens = limit.tpm !== undefined && used + tokens > limit.tpm;
    if (overRequests || overTokens) {
      const span = this.windowMs;
      const wait = overRequests
        ? waitFor(window, 1, now, span)
        : tokenWait(window, used + tokens - limit.tpm!, now, span);
      const headers = { ...limitHeaders(limit, window, used, now, span), 'retry-after': String(wait) };
      const message = overRequests
        ? `Rate limit exceeded: ${limit.rpm} requests per minute; retry after ${wait} s`
        : tokens > limit.tpm!
          ? `Rate limit exceeded: this request's ~${tokens} tokens are more than ${limit.tpm} tokens per minute`
          : `Rate limit exceeded: ${limit.tpm} tokens per minute; retry after ${wait} s`;
      return { ok: false, headers, message };
    }
    window.push({ at: now, tokens });
    return { ok: true, headers: limitHeaders(limit, window, used + tokens, now, this.windowMs) };
  }
}

/** whole seconds (at least 1) until `count` of the window's oldest requests have left it */
function waitFor(window: { at: number }[], count: number, now: number, span: number): number {
  const last = window[Math.min(count, window.length) - 1];
  return last ? Math.max(1, Math.ceil((last.at + span - now) / 1000)) : 1;
}

/** seconds until `excess` tokens have left the window (a minute when they never can) */
function tokenWait(window: { at: number; tokens: number }[], excess: number, now: number, span: number): number {
  let freed = 0;
  for (const [i, e] of window.entries()) {
    freed += e.tokens;
    if (freed >= excess) return waitFor(window, i + 1, now, span);
  }
  return Math.ceil(span / 1000);
}

function limitHeaders(
  limit: RateLimit,
  window: { at: number }[],
  usedTokens: number,
  now: number,
  span: number,
): Record<string, string> {
  const h: Record<string, string> = {
    'x-ratelimit-limit-requests': String(limit.rpm),
    'x-ratelimit-remaining-requests': String(Math.max(0, limit.rpm - window.length)),
    'x-ratelimit-reset-requests': `${window.length ? waitFor(window, 1, now, span) : 0}s`,
  };
  if (limit.tpm !== undefined) {
    h['x-ratelimit-limit-tokens'] = String(limit.tpm);
    h['x-ratelimit-remaining-tokens'] = String(Math.max(0, limit.tpm - usedTokens));
    h['x-ratelimit-reset-tokens'] = `${window.length ? waitFor(window, window.length, now, span) : 0}s`;
  }
  return h;
}

/** The tokens a request is counted as: its body's bytes / 4 (the Content-Length; at least 1). */
export function estimatedTokens(contentLength: string | undefined): number {
  const bytes = Number(contentLength ?? 0);
  return Math.max(1, Math.ceil((Number.isFinite(bytes) ? bytes : 0) / 4));
}
