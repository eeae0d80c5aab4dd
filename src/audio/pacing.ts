// A drift-free clock for real-time pacing: frame n is due at start + n × interval (never a chain of
// setTimeout delays, whose errors add up). A late consumer catches up instead of shifting the schedule.
import { performance } from 'node:perf_hooks';

/** Resolve at the monotonic time `t` (performance.now() ms), early on abort. */
export function sleepUntil(t: number, signal?: AbortSignal): Promise<void> {
  const wait = t - performance.now();
  if (wait <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, wait);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export class Pacer {
  private start: number | undefined;
  private n = 0;

  constructor(
    readonly intervalMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** When the next tick is due (ms, monotonic). The first tick is due at once and starts the clock. */
  get nextDue(): number {
    this.start ??= this.now();
    return this.start + this.n * this.intervalMs;
  }

  /** Wait for the next tick. */
  async tick(signal?: AbortSignal): Promise<void> {
    const due = this.nextDue;
    this.n++;
    await sleepUntil(due, signal);
  }

  /** Ticks taken so far. */
  get count(): number {
    return this.n;
  }

  /** Start again from now (after a pause). */
  reset(): void {
    this.start = undefined;
    this.n = 0;
  }
}
