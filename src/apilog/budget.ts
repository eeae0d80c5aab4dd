// The daily budget's reservations (budget.daily), shared by every svc process of the user. Before a call that may
// cost is sent, its worst case (its input and its cap on output tokens at the model's price, or its images or
// seconds of video at theirs) is reserved in a ledger beside the call log, under a lock file, against today's logged
// spend and every reservation still open; it ends when the call's record, with what it really cost, is in the call
// log (written under the same lock, so that no reader sees the cost in neither place). A process killed before that
// leaves its reservations open: they count until the day ends, since the API may have billed them.
import { appendFileSync, closeSync, openSync, readFileSync, readSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BudgetError } from '../core/errors.js';
import { processAlive } from '../core/signals.js';
import { dayFile, type Prices } from './log.js';
import { makeDirs } from 'svc-formats/make-dirs';
import { isoTime } from '../core/iso-time.js';

/**
 * The API's cap on output tokens when a request names none: the API document's default of max_completion_tokens
 * (chat) and max_output_tokens (responses); test/apilog/budget.test.ts holds it to the document.
 */
export const API_DEFAULT_MAX_OUTPUT_TOKENS = 128000;
/** A holder keeps the lock for milliseconds: one older than this whose process is gone, or this old, is stale. */
const LOCK_STALE_MS = 30_000;
/** How long a reservation waits for the lock before it gives up (loud: the call is not sent). */
const LOCK_WAIT_MS = 20_000;

const dayOf = (now: Date) => isoTime(now.getTime()).slice(0, 10);
const ledgerFile = (dir: string, day: string) => join(dir, `budget-${day}.jsonl`);

/** A call's worst case: dollars, and what they are for the refusal's message. */
export interface WorstCase {
  usd: number;
  what: string;
}

const TOKEN_PATHS = /\/v1\/(chat\/completions|responses|messages|completions|complete)$/;

/**
 * The most a request can cost, from the catalogue's prices: undefined for one the catalogue prices nothing of (files,
 * searches, speech); `{usd: NaN}` when it bills a model without a known price. Input tokens are bounded by the
 * bytes of the JSON body (a token is at least one byte), output by the request's cap or the API's default.
 */
export function worstCase(prices: Prices | undefined, path: string, body: unknown): WorstCase | undefined {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const model = typeof b.model === 'string' ? b.model : undefined;
  const p = model ? prices?.models[model] : undefined;
  const unpriced = { usd: Number.NaN, what: `no price is known for the model ${model ?? '(none named)'}` };
  const count = (v: unknown, fallback: number) => (typeof v === 'number' && v > 0 ? v : fallback);
  if (TOKEN_PATHS.test(path) || path.endsWith('/v1/embeddings')) {
    if (!p) return unpriced;
    const input = Buffer.byteLength(JSON.stringify(b));
    const embedding = path.endsWith('/v1/embeddings');
    const capField = ['max_completion_tokens', 'max_tokens', 'max_output_tokens'].find((f) => typeof b[f] === 'number');
    const out = embedding ? 0 : count(capField && b[capField], API_DEFAULT_MAX_OUTPUT_TOKENS) * count(b.n, 1);
    const cap = embedding ? '' : ` + ${out} output tokens (${capField ?? "the API's default cap"})`;
    return { usd: input * p.input + out * p.output, what: `≤ ${input} input tokens${cap} at ${model}'s price` };
  }
  const media = /\/v1\/(images\/(generations|edits)|videos\/(generations|extensions))$/.exec(path);
  if (!media) return undefined;
  if (media[2]) {
    if (p?.image === undefined) return unpriced;
    const n = count(b.n, 1);
    return { usd: n * p.image, what: `${n} image(s) at ${model}'s price` };
  }
  if (p?.video_second === undefined) return unpriced;
  const seconds = count(b.duration, media[3] === 'generations' ? 8 : 6);
  return { usd: seconds * p.video_second, what: `${seconds} s of video at ${model}'s price` };
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** A lock file whose holder is gone (killed while holding it) or that is older than any holder keeps one. */
function isStale(lock: string): boolean {
  try {
    const pid = Number(readFileSync(lock, 'utf8'));
    const age = Date.now() - statSync(lock).mtimeMs;
    return age > LOCK_STALE_MS || (pid > 0 && age > 100 && !processAlive(pid));
  } catch {
    return false; // gone meanwhile: the next try takes it
  }
}

function tryCreate(path: string): boolean {
  try {
    const fd = openSync(path, 'wx', 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * Run `fn` holding the ledger's lock (an O_EXCL file with the holder's pid). A stale lock is broken under a second
 * lock, after checking again that it is still stale, so that two processes never both break it and both hold it.
 */
export function withLedgerLock<T>(dir: string, fn: () => T): T {
  makeDirs(dir, 0o700);
  const lock = join(dir, 'budget.lock');
  const breaker = `${lock}.break`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let wait = 1; !tryCreate(lock); wait = Math.min(wait * 2, 20)) {
    if (isStale(lock)) {
      if (tryCreate(breaker)) {
        try {
          if (isStale(lock)) unlinkSync(lock);
        } catch {
          // removed by its holder meanwhile
        } finally {
          unlinkSync(breaker);
        }
        continue;
      }
      if (isStale(breaker)) unlinkSync(breaker);
    }
    if (Date.now() > deadline)
      throw new BudgetError(`budget.daily: the ledger's lock ${lock} stayed taken for 20 s; nothing was sent`);
    sleepSync(wait);
  }
  try {
    return fn();
  } finally {
    unlinkSync(lock);
  }
}

/** The open reservations of a day: id → dollars. */
function openReservations(dir: string, day: string): Map<string, number> {
  const open = new Map<string, number>();
  let text = '';
  try {
    text = readFileSync(ledgerFile(dir, day), 'utf8');
  } catch {
    return open;
  }
  for (const line of text.split('\n')) {
    try {
      const r = JSON.parse(line) as { id?: string; usd?: number; end?: boolean };
      if (typeof r.id !== 'string') continue;
      if (r.end) open.delete(r.id);
      else if (typeof r.usd === 'number') open.set(r.id, r.usd);
    } catch {
      // an empty or torn line
    }
  }
  return open;
}

/**
 * Today's logged spend (log.ts's spentToday), read incrementally: a batch reserves once a row, and reading the whole
 * day file each time would grow with the day. The part read is remembered by file and offset; a file that shrank
 * (records deleted: days removed) is read again from its start. Records blanked in place only lower the spend, so a
 * sum that still counts them errs on the safe side; a file made anew (another inode) is read from its start.
 */
const logged = { file: '', ino: 0, offset: 0, usd: 0 };

function loggedSpend(dir: string, now: Date): number {
  const file = dayFile(dir, dayOf(now));
  const st = statSync(file, { throwIfNoEntry: false });
  const size = st?.size ?? 0;
  const ino = st?.ino ?? 0;
  if (logged.file !== file || logged.ino !== ino || size < logged.offset)
    Object.assign(logged, { file, ino, offset: 0, usd: 0 });
  if (size === logged.offset) return logged.usd;
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(size - logged.offset);
    const n = readSync(fd, buf, 0, buf.length, logged.offset);
    // whole lines only: a record being appended is read next time
    const end = buf.subarray(0, n).lastIndexOf(10) + 1;
    for (const line of buf.subarray(0, end).toString('utf8').split('\n')) logged.usd += costOf(line);
    logged.offset += end;
  } finally {
    closeSync(fd);
  }
  return logged.usd;
}

/** A record's counted cost: its cost_usd unless emulated; a blanked, torn or foreign line counts nothing. */
function costOf(line: string): number {
  if (!line.startsWith('{')) return 0;
  try {
    const r = JSON.parse(line) as { id?: unknown; cost_usd?: unknown; emulated?: unknown };
    return typeof r.id === 'string' && typeof r.cost_usd === 'number' && !r.emulated ? r.cost_usd : 0;
  } catch {
    return 0;
  }
}

let sequence = 0;

/**
 * Reserve `cost` against budget.daily: refused (BudgetError, exit 8) when today's logged spend, the reservations
 * open and this one together pass it. Returns the reservation's id.
 */
export function reserve(dir: string, budget: number, cost: WorstCase, now = new Date()): string {
  if (!Number.isFinite(cost.usd))
    throw new BudgetError(`budget.daily $${budget}: ${cost.what}, so the call's cost has no bound; nothing was sent`);
  return withLedgerLock(dir, () => {
    const day = dayOf(now);
    const spent = loggedSpend(dir, now);
    let held = 0;
    for (const usd of openReservations(dir, day).values()) held += usd;
    if (spent + held + cost.usd > budget) {
      const left = Math.max(0, budget - spent - held);
      throw new BudgetError(
        `budget.daily $${budget}: this call may cost up to $${cost.usd.toFixed(8)} (${cost.what}), and only ` +
          `$${left.toFixed(8)} is left (spent today $${spent.toFixed(8)}, reserved by calls in flight ` +
          `$${held.toFixed(8)}); nothing was sent (a lower cap on output tokens, or \`svc config set budget.daily N\`)`,
      );
    }
    const id = `${day}/${process.pid}/${++sequence}/${Math.random().toString(36).slice(2, 8)}`;
    appendFileSync(ledgerFile(dir, day), `${JSON.stringify({ id, pid: process.pid, usd: cost.usd })}\n`, {
      mode: 0o600,
    });
    return id;
  });
}

/** End reservations (their calls are in the call log now, or were never sent); `write` runs first, under the lock. */
export function release(dir: string, ids: string[], write: () => void = () => {}): void {
  if (!ids.length) return write();
  withLedgerLock(dir, () => {
    write();
    const byDay = new Map<string, string[]>();
    for (const id of ids) {
      const day = id.slice(0, 10);
      byDay.set(day, [...(byDay.get(day) ?? []), id]);
    }
    for (const [day, list] of byDay)
      appendFileSync(ledgerFile(dir, day), list.map((id) => `${JSON.stringify({ id, end: true })}\n`).join(''));
  });
}
