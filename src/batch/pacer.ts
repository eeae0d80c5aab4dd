// How fast a batch sends: a window of rows in flight that adapts (AIMD: halved on a 429, grown by one row per
// window of successes, never above -P), a pause for everyone when the server says to wait (Retry-After on a 429),
// and the server's rate-limit headers read on every reply (x-ratelimit-remaining-requests / -reset-requests): when
// the requests left in the current window are taken by rows already in flight, no new row starts until it resets.
// So a run stays near the limit without a storm of 429s.

export interface PacerOptions {
  /** -P: the ceiling of rows in flight */
  ceiling: number;
  now?: () => number;
}

/** "12s", "1.5s", "200ms", "1m3s", or seconds as a bare number → ms */
export function parseResetHeader(v: string | undefined): number | undefined {
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Number(v) * 1000;
  let ms = 0;
  let any = false;
  for (const m of v.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    any = true;
    const n = Number(m[1]);
    ms += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
  }
  return any ? ms : undefined;
}

export class Pacer {
  /** the adaptive window: how many rows may be in flight */
  window: number;
  inFlight = 0;
  /** no row starts before this time (ms) */
  pausedUntil = 0;
  /** 429s seen */
  throttled = 0;
  /** requests the server said are left in its window, less those started since */
  private allowance: number | undefined;
  private allowanceResetAt = 0;
  private limitsSeen = false;
  /** sends numbered below decreasedAt (started before the last decrease) do not halve the window again */
  private seq = 0;
  private decreasedAt = 0;
  private readonly now: () => number;

  constructor(private readonly opts: PacerOptions) {
    this.window = opts.ceiling;
    this.now = opts.now ?? Date.now;
  }

  /** ms to wait before another row may start (0: now; Infinity: when a row in flight ends) */
  waitMs(): number {
    const now = this.now();
    if (this.pausedUntil > now) return this.pausedUntil - now;
    if (this.inFlight >= Math.max(1, Math.floor(this.window))) return Number.POSITIVE_INFINITY;
    if (this.allowance !== undefined && this.allowance <= 0) {
      if (this.allowanceResetAt > now) return this.allowanceResetAt - now;
      // the window moved on: one row goes, and its reply tells how many more may (a second, if it never does)
      this.allowance = 1;
      this.allowanceResetAt = now + 1000;
    }
    return 0;
  }

  /** a row starts: its sequence number, for on429 */
  started(): number {
    this.inFlight++;
    if (this.allowance !== undefined) this.allowance--;
    return this.seq++;
  }

  /** a reply (any status but 429) with its headers */
  answered(headers: Record<string, string | string[] | undefined> | undefined): void {
    this.inFlight--;
    if (this.window < this.opts.ceiling) this.window = Math.min(this.opts.ceiling, this.window + 1 / this.window);
    this.readLimits(headers);
  }

  /** no reply (a network error): the row is out of flight */
  ended(): void {
    this.inFlight--;
  }

  /** a 429 for the send numbered `seq`: halve the window once per round, pause everyone for Retry-After */
  on429(seq: number, retryAfterMs: number | undefined, headers?: Record<string, string | string[] | undefined>): void {
    this.inFlight--;
    this.throttled++;
    if (seq >= this.decreasedAt) {
      this.window = Math.max(1, this.window / 2);
      this.decreasedAt = this.seq;
    }
    const wait = retryAfterMs ?? 1000;
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + wait);
    this.readLimits(headers);
    // after the pause one row goes first (when the server tells its limits), and its reply says how many more may
    if (this.limitsSeen) this.allowance = 1;
  }

  private readLimits(headers: Record<string, string | string[] | undefined> | undefined): void {
    const h = (name: string) => {
      const v = headers?.[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const remaining = Number(h('x-ratelimit-remaining-requests'));
    if (h('x-ratelimit-remaining-requests') === undefined || !Number.isFinite(remaining)) return;
    this.limitsSeen = true;
    // rows in flight were already counted by the server or will be: they take from what is left
    this.allowance = remaining - this.inFlight;
    const reset = parseResetHeader(h('x-ratelimit-reset-requests'));
    this.allowanceResetAt = this.now() + Math.max(reset ?? 1000, 50);
  }
}
