// The journal of a batch: append-only JSON Lines, one record per change of a row's state (sent, done with its
// output line, failed with the error), each group of records written and fsync'ed before the rows they complete
// are printed, so that a kill -9 at any instant leaves every line but perhaps a torn last one, which reading skips.
// A `start` record opens each run (the first names the input and its fingerprint, and the template's, so a resume
// of another input or with another template is refused). Reading it back gives the rows known done and where each
// one's output line is, and the request ids of rows the API took deferred and had not answered (--deferred): a
// resume fetches those answers by id instead of paying for the rows again.
import { closeSync, constants, fstatSync, fsyncSync, lstatSync, openSync, readSync, writeSync } from 'node:fs';

// a symlink planted at the journal's place is never followed (ELOOP): the journal is svc's own file (0 off POSIX)
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

export interface StartRecord {
  t: 'start';
  batch: string;
  op: string;
  input: string;
  /** sha-256 of the input's bytes (folders: of the file names and sizes) */
  fingerprint: string;
  /** sha-256 of what shapes each row from outside the input: the template (--template, or -t's file) and --var */
  template?: string;
  rows: number;
  time: string;
}

export type JournalRecord =
  | StartRecord
  | { t: 'sent'; row: number; attempt: number }
  /** the API took the row to run deferred: its answer can be fetched by this id (not paid again) */
  | { t: 'accepted'; row: number; request_id: string }
  | { t: 'done'; row: number; out: Record<string, unknown> }
  | { t: 'failed'; row: number; out: Record<string, unknown> };

/** Where a row's output line sits in the journal. */
export interface Located {
  offset: number;
  length: number;
}

export interface JournalState {
  start?: StartRecord;
  /** rows done, and where their record is */
  done: Map<number, Located>;
  /** rows whose last state is failed */
  failed: Set<number>;
  /** rows sent whose reply was never journaled (in flight when the run stopped) */
  unanswered: Set<number>;
  /** of those, the rows the API had taken deferred: row → request id, to fetch the answer by */
  accepted: Map<number, string>;
  /** the number of records read */
  records: number;
  /** a torn last line was skipped */
  torn: boolean;
  /** spent by the rows done, USD */
  spent: number;
}

const CHUNK = 1 << 20;

/** Read a journal: every whole line; a last line without its newline (a kill mid-write) is skipped. */
export function readJournal(path: string): JournalState {
  const state: JournalState = {
    done: new Map(),
    failed: new Set(),
    unanswered: new Set(),
    accepted: new Map(),
    records: 0,
    torn: false,
    spent: 0,
  };
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return state;
  if (st.isSymbolicLink()) throw Object.assign(new Error(`${path} is a symbolic link`), { code: 'ELOOP' });
  const fd = openSync(path, constants.O_RDONLY | NOFOLLOW);
  try {
    const buf = Buffer.alloc(CHUNK);
    let carry = Buffer.alloc(0);
    let base = 0; // file offset of carry[0]
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (n <= 0) break;
      let data = Buffer.concat([carry, buf.subarray(0, n)]);
      let start = 0;
      for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
        apply(state, data.subarray(start, nl), base + start);
        start = nl + 1;
      }
      base += start;
      data = data.subarray(start);
      carry = Buffer.from(data);
    }
    if (carry.length) state.torn = true;
  } finally {
    closeSync(fd);
  }
  return state;
}

function apply(state: JournalState, line: Buffer, offset: number): void {
  let rec: JournalRecord;
  try {
    rec = JSON.parse(line.toString('utf8')) as JournalRecord;
  } catch {
    // a line torn by a crash and then followed by another run's records
    state.torn = true;
    return;
  }
  state.records++;
  if (rec.t === 'start') {
    state.start ??= rec;
    return;
  }
  if (rec.t === 'sent') {
    // sent afresh: an id the API gave an earlier send is not this send's
    state.accepted.delete(rec.row);
    if (!state.done.has(rec.row)) state.unanswered.add(rec.row);
    return;
  }
  if (rec.t === 'accepted') {
    if (!state.done.has(rec.row)) state.accepted.set(rec.row, rec.request_id);
    return;
  }
  state.unanswered.delete(rec.row);
  state.accepted.delete(rec.row);
  if (rec.t === 'done') {
    state.done.set(rec.row, { offset, length: line.length });
    state.failed.delete(rec.row);
    const cost = rec.out.cost_usd;
    if (typeof cost === 'number') state.spent += cost;
  } else if (!state.done.has(rec.row)) state.failed.add(rec.row);
}

/** The output record of a row done, read back from where the journal holds it. */
export function readOutAt(fd: number, at: Located): Record<string, unknown> {
  const buf = Buffer.alloc(at.length);
  readSync(fd, buf, 0, at.length, at.offset);
  return (JSON.parse(buf.toString('utf8')) as { out: Record<string, unknown> }).out;
}

/**
 * The journal being written: records are queued and written in groups, one write and one fsync per group (at
 * most once per turn of the event loop); `append` resolves once its record is on disk.
 */
export class JournalWriter {
  private queue: { line: string; resolve: (at: Located) => void; reject: (err: unknown) => void }[] = [];
  private scheduled = false;
  private size: number;
  readonly fd: number;
  private failed: unknown;

  constructor(readonly path: string) {
    this.fd = openSync(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | NOFOLLOW, 0o600);
    this.size = fstatSync(this.fd).size;
    // a torn last line (a kill mid-write) is ended, so the next record starts on a line of its own
    if (this.size > 0) {
      const last = Buffer.alloc(1);
      readSync(this.fd, last, 0, 1, this.size - 1);
      if (last[0] !== 10) this.size += writeSync(this.fd, '\n');
    }
  }

  append(rec: JournalRecord): Promise<Located> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.queue.push({ line: `${JSON.stringify(rec)}\n`, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Write and fsync what is queued. */
  flush(): void {
    this.scheduled = false;
    const group = this.queue.splice(0);
    if (!group.length) return;
    try {
      const bufs = group.map((g) => Buffer.from(g.line));
      const all = Buffer.concat(bufs);
      let off = 0;
      while (off < all.length) off += writeSync(this.fd, all, off, all.length - off);
      fsyncSync(this.fd);
      let at = this.size;
      this.size += all.length;
      for (const [i, g] of group.entries()) {
        // the record without its newline
        g.resolve({ offset: at, length: bufs[i]!.length - 1 });
        at += bufs[i]!.length;
      }
    } catch (err) {
      this.failed = err;
      for (const g of group) g.reject(err);
    }
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}
