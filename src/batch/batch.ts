// `svc batch`: the input checked whole, the journal read (a resume skips the rows done), the rows sent through the
// runner, the output written in order, failed rows into FAILED.jsonl, a summary, and the exit code that says how
// it ended (0 all done, 1 some failed, 8 the budget stopped it, 130 Ctrl-C).
import { createHash, randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { dataDir } from '../core/paths.js';
import type { Context } from '../runtime/context.js';
import { ExitCode, FileWriteError, UsageError, describeError, exitCodeFor } from '../core/errors.js';
import { readJournal, JournalWriter, type JournalState, type StartRecord } from './journal.js';
import { OrderedOutput, type Order } from './output.js';
import { BatchRunner, type RunStats } from './runner.js';
import { checkInput, rowBody, rowsToSend, type BatchSpec } from './plan.js';
import { statusLine } from '../term/progress.js';
import { filesThere, openSink, rowFinisher, writeFailed, type Sink } from './results.js';
import { dryRun, rowWorstCase, spendable } from './money.js';
import { makeDirs } from 'svc-formats/make-dirs';

export interface BatchOptions {
  /** -o FILE; undefined or '-': stdout */
  output?: string;
  outputDir?: string;
  journal?: string;
  resume?: boolean;
  order: Order;
  concurrency: number;
  maxFailures?: number;
  budget?: number;
  dryRun?: boolean;
  /** --force (--clobber): an existing -o file and files in --output-dir may be replaced */
  force?: boolean;
  /** rows sent for the API to run deferred (chat): a resume after a crash fetches their answers by request id */
  deferred?: boolean;
}

/**
 * The journal's place: --journal, else beside the output, else beside the input; in svc's state folder for stdin
 * (named by the operation and the input's content, so another stdin batch has its own) and when the folder beside
 * cannot be written (named by the path it would have had, so a --resume finds it again).
 */
export function journalPath(ctx: Context, spec: BatchSpec, o: BatchOptions, fingerprint: string): string {
  if (o.journal) return resolve(o.journal);
  const stateJournal = (name: string) => {
    const dir = join(dataDir(ctx.env), 'batch');
    makeDirs(dir, 0o700);
    return join(dir, `${name}.journal`);
  };
  if (spec.label === '-') return stateJournal(`stdin-${spec.op.name}-${fingerprint}`);
  const beside = resolve(
    o.output && o.output !== '-' ? `${o.output}.journal` : `${spec.label.replace(/[/\\]+$/, '')}.journal`,
  );
  if (writable(dirname(beside))) return beside;
  const moved = stateJournal(`${createHash('sha256').update(beside).digest('hex').slice(0, 32)}`);
  ctx.out.info(`journal: ${moved} (${dirname(beside)} cannot be written; --journal FILE puts it elsewhere)`);
  return moved;
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The journal as the last run left it: refused when it is another input's, or there without --resume. */
function openState(path: string, spec: BatchSpec, o: BatchOptions, fingerprint: string): JournalState {
  let state: JournalState;
  try {
    state = readJournal(path);
  } catch (err) {
    throw journalError(err, path, !!o.journal);
  }
  // a dry run sends nothing and writes no journal: without --resume it estimates every row, whatever is there
  if (o.dryRun && !o.resume) return { ...state, done: new Map(), spent: 0 };
  if (state.records > 0 && !o.resume)
    throw new UsageError(
      `${path}: the journal of an earlier run is there: give --resume to continue it (rows done are not sent ` +
        'again), or --journal FILE for a new one, or remove it to start over',
    );
  const s = state.start;
  if (s && (s.op !== spec.op.name || s.fingerprint !== fingerprint || s.template !== spec.identity))
    throw new UsageError(
      `--resume: ${path} is the journal of \`batch ${s.op} ${s.input}\` (${s.rows} rows), and ` +
        `${changed(s, spec, fingerprint)}; nothing was sent`,
    );
  return state;
}

function changed(s: StartRecord, spec: BatchSpec, fingerprint: string): string {
  if (s.op !== spec.op.name) return `this is ${spec.op.name}`;
  if (s.fingerprint !== fingerprint) return 'the input has changed since';
  return spec.identity === undefined
    ? 'that run had a template (-t, --template or --var) that this one has not'
    : `the template has changed since (${spec.templateLabel}; with its --var values)`;
}

export async function runBatch(ctx: Context, spec: BatchSpec, o: BatchOptions): Promise<number> {
  const { rows, fingerprint } = await checkInput(spec);
  const path = journalPath(ctx, spec, o, fingerprint);
  const state = openState(path, spec, o, fingerprint);
  if (o.dryRun) return dryRun(ctx, spec, rows, state);
  if (o.outputDir && !o.force) await refuseReplacing(spec, o.outputDir, state);
  // -o: on --resume the file is this batch's own output; a new run replaces one only with --force
  if (o.output && !o.resume) {
    const { refuseExisting } = await import('../core/atomic-file.js');
    refuseExisting(o.output, '-o', !!o.force);
  }
  if (o.budget !== undefined && !spec.op.priced)
    throw new UsageError(`--budget: ${spec.op.name} replies carry no usage to count the spend by`);
  const limit = await spendable(ctx, o.budget, state.spent);
  if (state.records && state.done.size === rows) ctx.out.info(`${path}: every row is done already`);
  const base = await ctx.http();
  const abandon = new AbortController();
  const { HttpClient } = await import('../net/http.js');
  // the rows' own retries are the runner's: a 429 goes to the pacer, not to one row's wait
  const http = new HttpClient({ ...base.opts, maxRetries: 0, signal: abandon.signal, onRetry: undefined });
  const batchId = state.start?.batch ?? `batch_${randomBytes(6).toString('hex')}`;
  ctx.tagCalls({ batch: batchId });
  const journal = openJournal(path, !!o.journal);
  let sink: Sink | undefined;
  try {
    await journal.append({
      t: 'start',
      batch: batchId,
      op: spec.op.name,
      input: spec.label === '-' ? '-' : resolve(spec.label),
      fingerprint,
      ...(spec.identity === undefined ? {} : { template: spec.identity }),
      rows,
      time: new Date().toISOString(),
    });
    sink = await openSink(ctx, o.output, ctx.globals.jq);
    // a row's worst case is worked out only when a --budget or the daily budget bounds the run
    const worstCase = limit === undefined ? () => undefined : await rowWorstCase(ctx, base, spec);
    const run = { ctx, spec, o, rows, state, journal, http, base, abandon, limit, worstCase, sink, batchId, path };
    return await send(run);
  } finally {
    await http.close().catch(() => {});
    journal.close();
    await sink?.discard();
  }
}

type Run = {
  ctx: Context;
  spec: BatchSpec;
  o: BatchOptions;
  rows: number;
  state: JournalState;
  journal: JournalWriter;
  http: import('../net/http.js').HttpClient;
  base: import('../net/http.js').HttpClient;
  abandon: AbortController;
  limit: number | undefined;
  worstCase: (body: Record<string, unknown>) => { usd: number; what: string } | undefined;
  sink: Sink;
  batchId: string;
  path: string;
};

async function send(r: Run): Promise<number> {
  const { ctx, spec, o, state } = r;
  const output = new OrderedOutput(o.order, () => r.journal.fd, r.sink.print, state.done);
  output.begin();
  const failedRows = new Map<number, Record<string, unknown>>();
  const status = statusLine(ctx.out);
  const started = Date.now();
  const runner: BatchRunner = new BatchRunner({
    http: r.http,
    op: spec.op,
    journal: r.journal,
    output,
    ceiling: o.concurrency,
    maxRetries: ctx.config().maxRetries,
    maxFailures: o.maxFailures,
    spendable: r.limit,
    worstCase: r.worstCase,
    reserveDaily: (body) => ctx.reserveSpend(spec.op.endpoint.split(' ')[1]!, body),
    body: (row) => rowBody(spec, row),
    finish: rowFinisher(ctx, spec, o.outputDir, r.base, (row) => !!o.force || state.unanswered.has(row.n)),
    failedRow: (row, body) => failedRows.set(row.n, { custom_id: row.id ?? `row-${row.n}`, ...body }),
    abandon: r.abandon.signal,
    deferred: o.deferred,
    accepted: new Map(state.accepted),
    onProgress: () => status.set(() => progressText(runner, r, started)),
  });
  observeLimits(r.http, runner);
  sayInFlight(ctx, state);
  takeCtrlC(ctx, runner, r.abandon);
  // SIGTERM, SIGHUP: as a second Ctrl-C (the process is going)
  const terminated = () => {
    runner.stop('abandoned');
    r.abandon.abort();
  };
  ctx.signal.addEventListener('abort', terminated, { once: true });
  let stats: RunStats;
  try {
    stats = await runner.run(rowsToSend(spec, (n) => state.done.has(n))[Symbol.asyncIterator]());
  } finally {
    status.done();
    ctx.setInterruptHandler(undefined);
    ctx.signal.removeEventListener('abort', terminated);
  }
  if (runner.fatal) throw runner.fatal;
  output.finish(r.rows);
  await r.sink.commit();
  const failedPath = await writeFailed(r.path, failedRows);
  return summarize(r, stats, Date.now() - started, failedPath);
}

/**
 * A resume after a crash: the rows that were in flight. Those the API had taken deferred are fetched by their request
 * id; the others are sent again, and the API may have answered (and billed) them already.
 */
function sayInFlight(ctx: Context, state: JournalState): void {
  const fetched = state.accepted.size;
  const twice = [...state.unanswered].filter((n) => !state.accepted.has(n)).length;
  if (!fetched && !twice) return;
  const parts = [];
  if (fetched)
    parts.push(
      `${fetched} taken deferred by the API: their answers are fetched by request id, not paid again (an answer ` +
        'the API delivered already, to the run that stopped, is gone: that row is sent again)',
    );
  if (twice) parts.push(`${twice} sent again: they may have been paid twice (--deferred avoids it for chat)`);
  ctx.out.info(`${fetched + twice} row(s) were in flight when the last run stopped: ${parts.join('; ')}`);
}

/** Every reply's rate-limit headers reach the pacer. */
function observeLimits(http: import('../net/http.js').HttpClient, runner: BatchRunner): void {
  const request = http.request.bind(http);
  http.request = async (req) => {
    try {
      const res = await request(req);
      runner.lastHeaders = res.headers;
      return res;
    } catch (err) {
      const headers = (err as { headers?: Record<string, string> }).headers;
      if (headers) runner.lastHeaders = headers;
      throw err;
    }
  };
}

/** Ctrl-C stops sending and waits for the rows in flight; a second one abandons them. */
function takeCtrlC(ctx: Context, runner: BatchRunner, abandon: AbortController): void {
  let presses = 0;
  ctx.setInterruptHandler(() => {
    presses++;
    if (presses === 1) {
      runner.stop('interrupted');
      ctx.out.info(`\nstopping: waiting for ${runner.pacer.inFlight} row(s) in flight (Ctrl-C again to abandon them)`);
    } else {
      runner.stop('abandoned');
      abandon.abort();
    }
  });
}

function progressText(runner: BatchRunner, r: Run, started: number): string {
  const s = runner.stats;
  const finished = s.done + s.failed;
  const total = r.rows - r.state.done.size;
  const secs = Math.max(0.001, (Date.now() - started) / 1000);
  const rate = finished / secs;
  const eta = rate > 0 ? Math.round((total - finished) / rate) : undefined;
  const etaText = eta === undefined ? '?' : `${Math.floor(eta / 60)}:${String(eta % 60).padStart(2, '0')}`;
  const pct = total ? Math.floor((finished / total) * 100) : 100;
  return (
    `${r.ctx.out.ce.cyan(`${finished}/${total}`)} ${pct}% · ${rate.toFixed(1)} rows/s · ETA ${etaText} · ` +
    `$${s.spent.toFixed(4)} · ${s.retried} retried${s.failed ? ` · ${s.failed} failed` : ''}`
  );
}

function summarize(r: Run, s: RunStats, ms: number, failedPath: string | undefined): number {
  const { ctx } = r;
  const before = r.state.done.size;
  const code = exitCode(s);
  const left = r.rows - before - s.done - s.failed;
  const summary = {
    batch: r.batchId,
    rows: r.rows,
    done: before + s.done,
    done_now: s.done,
    failed: s.failed,
    not_sent: left,
    retried: s.retried,
    throttled: s.throttled,
    fetched_by_id: s.fetched,
    maybe_paid_twice: [...r.state.unanswered].filter((n) => !r.state.accepted.has(n)).length + s.resent,
    input_tokens: s.inputTokens,
    output_tokens: s.outputTokens,
    cost_usd: Number(s.spent.toFixed(6)),
    elapsed_s: Number((ms / 1000).toFixed(3)),
    journal: r.path,
    ...(failedPath ? { failed_rows: failedPath } : {}),
    ...(s.stopped ? { stopped: s.stopped } : {}),
    exit_code: code,
  };
  // --json (not --jq, whose filter is for the rows): the summary as JSON, on stdout when the rows went to a file
  if (ctx.globals.json && r.o.output && r.o.output !== '-') ctx.out.printJson(summary);
  else if (ctx.globals.json) ctx.out.stderrWrite(`${JSON.stringify(summary)}\n`);
  else sayDone(r, summary, failedPath);
  if (left > 0 || s.stopped) ctx.out.info(`${why(s)}: ${left} row(s) not sent; ${howToGoOn(r, s, left)}`);
  return code;
}

/** What to do about the rows not sent: at the budget, more of it (a resume under the same budget would stop again). */
function howToGoOn(r: Run, s: RunStats, left: number): string {
  const journal = `(journal ${r.path})`;
  if (s.stopped !== 'budget') return `resume with the same command and --resume ${journal}`;
  if (r.o.budget === undefined)
    return (
      "today's spend has reached budget.daily: raise it (svc config set budget.daily USD) or wait for tomorrow, " +
      `then resume with the same command and --resume ${journal}`
    );
  const done = r.state.done.size + s.done;
  const spent = r.state.spent + s.spent;
  // the rows left at the mean cost of those done, and a tenth more
  const need = done ? Math.ceil((spent / done) * (done + left) * 1.1 * 100) / 100 : undefined;
  const raise = need && need > r.o.budget ? `--budget ${need.toFixed(2)}` : 'a higher --budget';
  return (
    `$${spent.toFixed(4)} of --budget $${r.o.budget} is spent: to send them, run the same command with --resume ` +
    `and ${raise} (the spend counts across resumes) ${journal}`
  );
}

/** The journal, opened: a symlink at its place is refused, a folder that cannot be written names --journal. */
function openJournal(path: string, given: boolean): JournalWriter {
  try {
    return new JournalWriter(path);
  } catch (err) {
    throw journalError(err, path, given);
  }
}

function journalError(err: unknown, path: string, given: boolean): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP')
    return new UsageError(
      `${path}: the journal's place is a symbolic link, which svc neither reads nor writes through (it did not ` +
        'make it); nothing was sent: remove it, or give --journal FILE',
    );
  return new FileWriteError(given ? path : `${path} (the journal; --journal FILE puts it elsewhere)`, code, err);
}

/** --output-dir: the files the rows to send would be saved as, refused when one is there already (--force). */
async function refuseReplacing(spec: BatchSpec, dir: string, state: JournalState): Promise<void> {
  // a row sent and never answered (a crash) may have left its file: the resume's own to replace
  const there = await filesThere(spec, dir, (n) => state.done.has(n) || state.unanswered.has(n));
  if (!there.length) return;
  const listed = there.slice(0, 5).join(', ') + (there.length > 5 ? ` and ${there.length - 5} more` : '');
  throw new UsageError(
    `--output-dir: ${there.length} file(s) the rows would be saved as are there already (${listed}); ` +
      'nothing was sent: give --force to replace them, or another --output-dir',
  );
}

function exitCode(s: RunStats): number {
  if (s.stopped === 'interrupted' || s.stopped === 'abandoned') return ExitCode.interrupted;
  if (s.stopped === 'budget') return ExitCode.budget;
  // the key refused (4), the server down or failing (1 network, 7 5xx): as the same error of one request
  if (s.stopped === 'refused' || s.stopped === 'unreachable') return exitCodeFor(s.cause);
  return s.failed > 0 ? ExitCode.error : ExitCode.ok;
}

function why(s: RunStats): string {
  if (s.stopped === 'budget') return `stopped at the budget${s.budgetNote ? ` (${s.budgetNote})` : ''}`;
  if (s.stopped === 'failures') return 'stopped at --max-failures';
  if (s.stopped === 'refused') return `stopped: the API refused the key (${describeError(s.cause)})`;
  if (s.stopped === 'unreachable')
    return `stopped: rows failed one after another, the last with ${describeError(s.cause)}`;
  if (s.stopped) return 'interrupted';
  return 'stopped';
}

function sayDone(r: Run, s: Record<string, unknown>, failedPath: string | undefined): void {
  const { ctx } = r;
  const tokens = Number(s.input_tokens) + Number(s.output_tokens);
  ctx.out.info(
    `${s.done}/${s.rows} done · ${s.failed} failed · ${s.retried} retried (${s.throttled} × 429) · ` +
      `${tokens} tokens · $${Number(s.cost_usd).toFixed(4)} · ${Number(s.elapsed_s).toFixed(1)} s`,
  );
  if (failedPath) ctx.out.info(`failed rows: ${failedPath} (re-run them: ${rerunCommand(r, failedPath)})`);
}

/** The command that sends the failed rows again: their bodies are whole, so no template or body flag is needed. */
function rerunCommand(r: Run, failedPath: string): string {
  const words = ['svc', 'batch', r.spec.op.name, failedPath];
  if (r.o.output && r.o.output !== '-') words.push('-o', r.o.output.replace(/(\.jsonl)?$/, '.retry.jsonl'));
  if (r.o.outputDir) words.push('--output-dir', r.o.outputDir);
  return words.map(shellWord).join(' ');
}

const shellWord = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`);
