// A batch run: rows not known done are sent through the pacer (pacer.ts) by batch's own scheduler — every request
// with the HTTP client's retries off, so that a 429 reaches the pacer (which halves the window and pauses everyone
// for Retry-After) instead of being waited out by one row while the others storm; 5xx replies and network errors
// are retried here with the client's backoff and retry count. Each state change is journaled before the row is
// printed; a row that keeps failing is recorded failed and the run goes on (--max-failures stops it).
import { ApiError, BudgetError, ExitCode, NetworkError, exitCodeFor } from '../core/errors.js';
import { backoffMs, sleep, type HttpClient } from '../net/http.js';
import type { JournalWriter } from './journal.js';
import type { OrderedOutput } from './output.js';
import { Pacer } from './pacer.js';
import type { Operation, RowResult } from './operations.js';
import type { Row } from './input.js';
import type { Spend } from '../runtime/context.js';

/** 429s a row may meet before it is recorded failed (the pauses they cause are the server's to say) */
const MAX_THROTTLED_TRIES = 30;

/**
 * Why a run stopped before its last row: the budget, --max-failures, Ctrl-C (a second one: abandoned), the key
 * refused (401/403: every row would be), or rows failing one after another on the network or with 5xx (the server
 * is down: going on would only fail the rest one by one)
 */
export type StopReason = 'budget' | 'failures' | 'interrupted' | 'abandoned' | 'refused' | 'unreachable';

export interface RunHooks {
  http: HttpClient;
  op: Operation;
  journal: JournalWriter;
  output: OrderedOutput;
  ceiling: number;
  maxRetries: number;
  maxFailures?: number;
  /** the USD the run may still spend (--budget and the daily budget), undefined: no limit */
  spendable?: number;
  /** the most a row's body may cost (USD; NaN: no bound known; undefined: it costs nothing), with what it is for */
  worstCase(body: Record<string, unknown>): { usd: number; what: string } | undefined;
  /**
   * budget.daily's reservation of a row's worst case, shared with every svc process (throws a BudgetError when it
   * does not fit); returns what runs the row's send under it
   */
  reserveDaily(body: Record<string, unknown>): Promise<Spend | undefined>;
  /** the body of a row (throws a row problem: recorded failed) */
  body(row: Row): Promise<Record<string, unknown>>;
  /** the output record of a reply (files saved, cost worked out) */
  finish(row: Row, result: RowResult, attempts: number): Promise<Record<string, unknown>>;
  /** the row failed for good: remembered for failed.jsonl */
  failedRow(row: Row, body: Record<string, unknown> | undefined): void;
  /** --deferred: new rows are sent for the API to run deferred, their request ids journaled once it takes them */
  deferred?: boolean;
  /** rows an earlier run had the API take deferred, not answered then: row → the request id to fetch it by */
  accepted: Map<number, string>;
  /** aborted by a second Ctrl-C: requests in flight are abandoned */
  abandon: AbortSignal;
  onProgress(): void;
}

export interface RunStats {
  done: number;
  failed: number;
  /** sends after the first, of any row */
  retried: number;
  throttled: number;
  inputTokens: number;
  outputTokens: number;
  spent: number;
  stopped?: StopReason;
  /** rows of an earlier run answered by fetching their deferred answer by request id (not paid again) */
  fetched: number;
  /** rows whose deferred answer was gone (404: fetched already, or expired): sent again, perhaps paid twice */
  resent: number;
  /** why the budget stopped the run: the row that did not fit, what it may cost and what was left */
  budgetNote?: string;
  /** the error that stopped the run (refused, unreachable) */
  cause?: unknown;
}

export class BatchRunner {
  readonly stats: RunStats = {
    done: 0,
    failed: 0,
    retried: 0,
    throttled: 0,
    inputTokens: 0,
    outputTokens: 0,
    spent: 0,
    fetched: 0,
    resent: 0,
  };
  readonly pacer: Pacer;
  private readonly retryQueue: Item[] = [];
  private readonly tasks = new Set<Promise<void>>();
  private wake: () => void = () => {};
  /** the worst cases of the rows in flight, reserved against --budget until each row's cost is known */
  private reserved = 0;

  /** each row in flight has its own signal; the shared one (a second Ctrl-C) has one listener, aborting them all */
  private readonly inFlightSignals = new Set<AbortController>();

  constructor(private readonly h: RunHooks) {
    this.pacer = new Pacer({ ceiling: h.ceiling });
  }

  /** A signal for one row's send and waits, aborted with the shared one (listened to once, however many rows). */
  private rowSignal(): AbortController {
    const c = new AbortController();
    if (this.h.abandon.aborted) c.abort();
    else if (!this.inFlightSignals.size) this.h.abandon.addEventListener('abort', this.abandonAll, { once: true });
    this.inFlightSignals.add(c);
    return c;
  }

  private releaseSignal(c: AbortController): void {
    this.inFlightSignals.delete(c);
    if (!this.inFlightSignals.size) this.h.abandon.removeEventListener('abort', this.abandonAll);
  }

  private readonly abandonAll = () => {
    for (const c of this.inFlightSignals) c.abort();
  };

  /** Stop sending new rows (Ctrl-C, budget, too many failures); rows in flight finish. */
  stop(reason: StopReason): void {
    this.stats.stopped ??= reason;
    this.wake();
  }

  private nap(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = Number.isFinite(ms) ? setTimeout(resolve, ms) : undefined;
      this.wake = () => {
        if (t) clearTimeout(t);
        resolve();
      };
    });
  }

  /** Send every row of `rows`, then wait for those in flight. */
  async run(rows: AsyncIterator<Row>): Promise<RunStats> {
    // the next new row is read ahead, so that the end of the input is known without waiting for the pacer
    let ahead = await rows.next();
    while (!this.stats.stopped) {
      if (ahead.done && !this.retryQueue.length) {
        if (this.tasks.size === 0) break;
        await this.nap(Number.POSITIVE_INFINITY);
        continue;
      }
      const wait = this.pacer.waitMs();
      if (wait > 0) {
        await this.nap(wait);
        continue;
      }
      let next = this.retryQueue.shift();
      if (!next && !ahead.done) {
        next = { row: ahead.value, tries: 0, throttled: 0, requestId: this.h.accepted.get(ahead.value.n) };
        ahead = await rows.next();
      }
      if (!next) continue;
      const money = await this.budgetSays(next);
      if (money !== 'go') {
        this.retryQueue.unshift(next);
        if (money === 'stop') this.stop('budget');
        else await this.nap(Number.POSITIVE_INFINITY);
        continue;
      }
      this.launch(next);
    }
    while (this.tasks.size) await Promise.race(this.tasks);
    return this.stats;
  }

  /**
   * Reserve a row's worst case before it goes: against --budget (what this run may spend less what it spent and
   * what the rows in flight may cost) and against budget.daily (apilog/budget, across processes). A row that does
   * not fit waits while rows in flight may free room, and stops the run when none is in flight: never started.
   */
  private async budgetSays(item: Item): Promise<'go' | 'wait' | 'stop'> {
    // fetching an answer the API holds costs nothing
    if (item.requestId) return 'go';
    item.body ??= await this.h.body(item.row).catch(() => undefined);
    // a row without a body fails in attempt(), sending nothing
    const worst = item.body && this.h.worstCase(item.body);
    const left = this.h.spendable;
    const busy = () => (this.pacer.inFlight > 0 ? 'wait' : 'stop');
    if (worst && left !== undefined && !(this.stats.spent + this.reserved + worst.usd <= left)) {
      const room = Math.max(0, left - this.stats.spent - this.reserved);
      this.stats.budgetNote = `row ${item.row.n} ${costNote(worst)}, and $${room.toFixed(6)} is left of --budget`;
      return busy();
    }
    try {
      item.spend = item.body ? await this.h.reserveDaily(item.body) : undefined;
    } catch (err) {
      if (!(err instanceof BudgetError)) throw err;
      this.stats.budgetNote = `row ${item.row.n}: ${err.message}`;
      return busy();
    }
    item.worst = worst && left !== undefined ? worst.usd : 0;
    this.reserved += item.worst;
    return 'go';
  }

  private launch(item: Item): void {
    const seq = this.pacer.started();
    if (item.tries + item.throttled > 0) this.stats.retried++;
    const signal = this.rowSignal();
    const task = this.attempt(item, seq, signal.signal)
      .catch((err) => {
        // a journal that cannot be written stops the run: nothing more can be promised
        this.fatal ??= err;
        this.stop('failures');
      })
      .finally(() => {
        this.releaseSignal(signal);
        this.tasks.delete(task);
        this.wake();
      });
    this.tasks.add(task);
  }

  /** the error that ended the run (the journal could not be written) */
  fatal: unknown;

  private async attempt(item: Item, seq: number, signal: AbortSignal): Promise<void> {
    const { row } = item;
    let body: Record<string, unknown> | undefined;
    let result: RowResult;
    const deferred = this.h.op.deferred;
    try {
      if (item.requestId && deferred) {
        result = await deferred.collect(this.h.http, item.requestId, signal);
        if (this.h.accepted.has(row.n)) this.stats.fetched++;
      } else {
        body = item.body ?? (await this.h.body(row));
        const attempt = item.tries + item.throttled + 1;
        void this.h.journal.append({ t: 'sent', row: row.n, attempt }).catch(() => {});
        const send = () => this.sendRow(item, body!, signal);
        result = await (item.spend ? item.spend(send) : send());
      }
    } catch (err) {
      this.unreserve(item);
      if (item.requestId && err instanceof ApiError && err.status === 404 && this.h.accepted.delete(row.n)) {
        // the API no longer holds the answer (delivered once already, or expired): the row goes again
        this.stats.resent++;
        this.pacer.ended();
        this.retryQueue.push({ ...item, requestId: undefined });
        return;
      }
      return this.failedAttempt(item, seq, body, err, signal);
    }
    this.pacer.answered(this.lastHeaders);
    const out = await this.h.finish(row, result, item.tries + item.throttled + 1);
    this.count(out);
    this.unreserve(item);
    const at = await this.h.journal.append({ t: 'done', row: row.n, out });
    this.stats.done++;
    this.unanswered = 0;
    this.h.output.complete(row.n, at);
    this.h.onProgress();
  }

  /** Send a row: at once, or (--deferred) for the API to run deferred, its request id journaled before waiting. */
  private async sendRow(item: Item, body: Record<string, unknown>, signal: AbortSignal): Promise<RowResult> {
    const deferred = this.h.deferred ? this.h.op.deferred : undefined;
    if (!deferred) return this.h.op.send(this.h.http, body, signal);
    const id = await deferred.accept(this.h.http, body, signal);
    item.requestId = id;
    await this.h.journal.append({ t: 'accepted', row: item.row.n, request_id: id });
    return deferred.collect(this.h.http, id, signal);
  }

  /** the rate-limit headers of the latest reply (set by the client's observer) */
  lastHeaders: Record<string, string | string[] | undefined> | undefined;

  private count(out: Record<string, unknown>): void {
    const u = out.usage as { input_tokens?: number; output_tokens?: number } | undefined;
    this.stats.inputTokens += u?.input_tokens ?? 0;
    this.stats.outputTokens += u?.output_tokens ?? 0;
    if (typeof out.cost_usd === 'number') this.stats.spent += out.cost_usd;
  }

  /** the row's reservation against --budget ends: its cost is counted now, or it cost nothing */
  private unreserve(item: Item): void {
    this.reserved -= item.worst ?? 0;
    item.worst = undefined;
    item.spend = undefined;
  }

  private async failedAttempt(
    item: Item,
    seq: number,
    body: Record<string, unknown> | undefined,
    err: unknown,
    signal: AbortSignal,
  ): Promise<void> {
    if (this.h.abandon.aborted) {
      this.pacer.ended();
      return; // abandoned by a second Ctrl-C: the row stays "sent", a resume sends it again
    }
    if (err instanceof ApiError && err.status === 429 && item.throttled < MAX_THROTTLED_TRIES) {
      this.stats.throttled++;
      this.pacer.on429(seq, err.retryAfterMs, this.lastHeaders);
      this.retryQueue.push({ ...item, throttled: item.throttled + 1 });
      return;
    }
    this.pacer.ended();
    if ((body || item.requestId) && retriable(err) && item.tries < this.h.maxRetries) {
      await sleep(backoffMs(item.tries), signal).catch(() => {});
      if (!this.h.abandon.aborted) this.retryQueue.push({ ...item, tries: item.tries + 1 });
      return;
    }
    await this.recordFailure(item.row, body, err, item.tries + item.throttled + 1);
  }

  private async recordFailure(row: Row, body: Record<string, unknown> | undefined, err: unknown, attempts: number) {
    const out: Record<string, unknown> = { row: row.n, ...(row.id !== undefined ? { id: row.id } : {}) };
    if (row.line) out.line = row.line;
    out.status = 'failed';
    out.error = errorRecord(err);
    out.attempts = attempts;
    const at = await this.h.journal.append({ t: 'failed', row: row.n, out });
    this.stats.failed++;
    this.h.failedRow(row, body);
    this.h.output.complete(row.n, at);
    this.h.onProgress();
    if (this.h.maxFailures !== undefined && this.stats.failed >= this.h.maxFailures) this.stop('failures');
    // 401/403, or a 400 naming the key: every row would be refused
    if (err instanceof ApiError && exitCodeFor(err) === ExitCode.auth) {
      this.stats.cause ??= err;
      this.stop('refused');
    }
    this.unanswered = retriable(err) ? this.unanswered + 1 : 0;
    if (this.unanswered >= Math.max(10, 2 * this.h.ceiling)) {
      this.stats.cause ??= err;
      this.stop('unreachable');
    }
  }

  /** rows failed one after another on the network or with 5xx (a row done sets it back to 0) */
  private unanswered = 0;
}

/** A row to send: its tries so far, its body once built, and what it holds of the budgets while in flight. */
interface Item {
  row: Row;
  tries: number;
  throttled: number;
  body?: Record<string, unknown>;
  /** its worst case, reserved against --budget */
  worst?: number;
  /** runs its send under its budget.daily reservation */
  spend?: Spend;
  /** the API holds its answer under this id (taken deferred): fetched, not sent again */
  requestId?: string;
}

function costNote(worst: { usd: number; what: string }): string {
  return Number.isFinite(worst.usd)
    ? `may cost up to $${worst.usd.toFixed(6)} (${worst.what})`
    : `has no bound on its cost (${worst.what})`;
}

/** 5xx (and 408) replies and network errors: worth another try of the same row */
function retriable(err: unknown): boolean {
  if (err instanceof ApiError) return err.status >= 500 || err.status === 408;
  return err instanceof NetworkError;
}

export function errorRecord(err: unknown): Record<string, unknown> {
  if (err instanceof ApiError)
    return {
      message: err.message,
      status: err.status,
      ...(err.code ? { code: err.code } : {}),
      ...(err.requestId ? { request_id: err.requestId } : {}),
    };
  return { message: err instanceof Error ? err.message : String(err), type: (err as Error)?.name ?? 'Error' };
}
