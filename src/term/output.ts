// The output layer: stdout is data, stderr is everything else. Tables and colour on a terminal, plain
// tab-separated lines in a pipe, JSON / NDJSON with --json, spinners only on a terminal's stderr.
import type { JqFilter } from './jq.js';
import { NO_COLORS, colorWanted, loadColors, type Colors } from './color.js';
import { jsonSafe, terminalSafe } from './terminal-safe.js';
import { readEnv } from '../core/environment.js';
import { StdoutWriteError, UsageError } from '../core/errors.js';
import { guardStdout, type StdoutGuard } from './stdout-guard.js';
import { replyOf } from './reply.js';
import { isoTime } from '../core/iso-time.js';

export interface Streams {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** whether stderr is a terminal, when known without asking the stream (main(): process.stderr is made on use) */
  stderrIsTTY?: boolean;
}

/** `--json FIELD,FIELD`: the names, and the projection (term/json-fields.ts, loaded only for a field list) */
export interface JsonSelection {
  names: readonly string[];
  project(value: unknown): unknown;
}

export interface OutputOptions {
  json: boolean;
  /** --jq: every JSON value printed goes through it */
  jq?: JqFilter;
  /** `--json FIELD,FIELD`: each JSON value printed keeps these fields only (before --jq) */
  fields?: JsonSelection;
  quiet: boolean;
  verbose: boolean;
  color: boolean | undefined;
  env: NodeJS.ProcessEnv;
}

export interface Column<Row> {
  header: string;
  get: (row: Row) => unknown;
  align?: 'left' | 'right';
  /** never cut (ids, dates); right-aligned columns (numbers) and columns named like ids are kept too */
  keep?: boolean;
  /** may be left out on a narrow terminal (a note says so): the lowest number first */
  optional?: number;
}

export interface Spinner {
  update(text: string): void;
  succeed(text?: string): void;
  fail(text?: string): void;
  stop(): void;
}

/** ora's "dots" frames */
const DOTS = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

const noopSpinner: Spinner = { update() {}, succeed() {}, fail() {}, stop() {} };

export class Output {
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** the colour decision for stdout and for stderr (NO_COLOR, FORCE_COLOR, --no-color, TERM=dumb, a terminal) */
  readonly colorStdout: boolean;
  readonly colorStderr: boolean;
  /** colours for stdout text (plain until loadColors) */
  c: Colors = NO_COLORS;
  /** colours for stderr text (plain until loadColors) */
  ce: Colors = NO_COLORS;
  /** set when something (a partial line) was written to stdout without a final newline */
  private stdoutMidLine = false;
  /** the failures of stdout's writes (every writer's, not only this one's) */
  readonly stdoutGuard: StdoutGuard;

  constructor(
    readonly streams: Streams,
    readonly opts: OutputOptions,
  ) {
    this.stdoutIsTTY = !!streams.stdout.isTTY;
    this.stderrIsTTY = streams.stderrIsTTY ?? !!streams.stderr.isTTY;
    this.colorStdout = colorWanted(this.stdoutIsTTY, opts.env, opts.color);
    this.colorStderr = colorWanted(this.stderrIsTTY, opts.env, opts.color);
    this.stdoutGuard = guardStdout(streams.stdout);
  }

  /** Load the styles the decision asks for (chalk is imported only when some colour is on). */
  async loadColors(): Promise<void> {
    this.c = await loadColors(this.colorStdout, this.opts.env);
    this.ce = this.colorStderr === this.colorStdout ? this.c : await loadColors(this.colorStderr, this.opts.env);
  }

  /**
   * Whether stderr can be redrawn in place (spinners, progress bars): a terminal that reports its width, not
   * TERM=dumb, not --quiet. A pseudo-terminal of 0 columns (script, some CI runners) gets static lines instead.
   */
  get liveStderr(): boolean {
    return (
      this.stderrIsTTY &&
      !this.opts.quiet &&
      (this.streams.stderr.columns ?? 0) > 0 &&
      readEnv(this.opts.env, 'TERM') !== 'dumb'
    );
  }

  get json(): boolean {
    return this.opts.json;
  }

  /**
   * The command is about to print bytes (a file, audio) on stdout: with --jq, exit 2 (before anything is sent when
   * called before the request), since the filter would be passed by unseen.
   */
  bytesToStdout(): void {
    if (this.opts.jq) throw new UsageError('--jq: the output is bytes, not JSON: there is nothing to filter');
  }

  /** --jq was given: what is printed as JSON goes through the filter (and what is not JSON cannot). */
  get filtered(): boolean {
    return !!this.opts.jq;
  }

  /**
   * Data to stdout (streamed text, bytes). Text on a terminal is made safe first (server text may carry escape
   * sequences); in a pipe it is written byte for byte.
   */
  write(chunk: string | Uint8Array): void {
    if (typeof chunk !== 'string' && chunk.length > 0) this.bytesToStdout();
    if (typeof chunk === 'string') {
      if (chunk.length === 0) return;
      this.stdoutMidLine = !chunk.endsWith('\n');
      if (this.stdoutIsTTY) chunk = terminalSafe(chunk, { keepColor: this.colorStdout });
    } else if (chunk.length > 0) {
      this.stdoutMidLine = chunk[chunk.length - 1] !== 0x0a;
    }
    this.rawWrite(chunk);
  }

  /**
   * The one way to stdout: bytes or text as given (no terminal safety: write() adds it). Once a write has failed, the
   * next one throws the StdoutWriteError, so a streamed command stops instead of talking to a stdout that is gone.
   */
  rawWrite(chunk: string | Uint8Array): boolean {
    const failure = this.stdoutGuard.failure;
    if (failure) throw failure;
    return this.streams.stdout.write(chunk);
  }

  /**
   * Bytes to stdout with back-pressure (downloads and audio to `-o -`): resolves once the stream can take more,
   * rejects with the StdoutWriteError when a write failed.
   */
  writeBytes(chunk: Uint8Array): Promise<void> {
    if (chunk.length === 0) return Promise.resolve();
    let ok: boolean;
    try {
      ok = this.rawWrite(chunk);
    } catch (err) {
      return Promise.reject(err);
    }
    if (ok) return Promise.resolve();
    const stdout = this.streams.stdout;
    return new Promise((resolve, reject) => {
      const settle = (err?: Error) => {
        stdout.removeListener('drain', onDrain);
        stdout.removeListener('error', onError);
        if (err) reject(err);
        else resolve();
      };
      const onDrain = () => settle();
      const onError = () => settle(this.stdoutGuard.failure ?? new StdoutWriteError(undefined));
      stdout.once('drain', onDrain);
      stdout.once('error', onError);
      // a stream that failed already emits nothing more
      if (this.stdoutGuard.failure) onError();
    });
  }

  /** stdout for a writer that takes a stream (a live transcript): its writes go through rawWrite. */
  get stdoutWriter(): { isTTY: boolean; write(text: string): boolean } {
    return { isTTY: this.stdoutIsTTY, write: (text) => this.rawWrite(text) };
  }

  /** svc's own cursor control on a terminal's stdout (a live line redrawn in place); never server text. */
  control(sequence: string): void {
    if (this.stdoutIsTTY) this.rawWrite(sequence);
  }

  /** Values never to show on stderr (secrets a command read from the environment), longest first. */
  private hidden: string[] = [];

  /** Hide these values in everything written to stderr from now on (the --verbose trace included). */
  hideOnStderr(values: string[]): void {
    this.hidden = [...new Set([...this.hidden, ...values.filter((v) => v !== '')])].sort((a, b) => b.length - a.length);
  }

  /** Text for stderr, made safe when stderr is a terminal. */
  private toStderr(text: string): void {
    for (const v of this.hidden) text = text.split(v).join('[REDACTED]');
    this.streams.stderr.write(this.stderrIsTTY ? terminalSafe(text, { keepColor: this.colorStderr }) : text);
  }

  /** One line of data to stdout. */
  line(text = ''): void {
    this.write(`${text}\n`);
  }

  /** End a partially written stdout line (after streamed text). */
  endLine(): void {
    if (this.stdoutMidLine) this.write('\n');
  }

  /** One JSON value: pretty on a terminal, one compact line in a pipe. */
  printJson(reply: unknown): void {
    // a resource the api layer unwrapped prints as the API sent it (term/reply.ts)
    const value = this.selected(replyOf(reply));
    if (this.opts.jq) return this.printJq(value, this.stdoutIsTTY);
    this.line(jsonSafe(this.stdoutIsTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value)));
  }

  /**
   * One JSON value per line (list entries, stream events). `record`: svc's own line (the cursor record), printed
   * whole whatever fields were asked for.
   */
  printJsonLine(value: unknown, opts: { record?: boolean } = {}): void {
    if (!opts.record) value = this.selected(value);
    if (this.opts.jq) return this.printJq(value, false);
    this.line(jsonSafe(JSON.stringify(value)));
  }

  /** The value with only the fields of `--json FIELD,FIELD` (all of it without). */
  private selected(value: unknown): unknown {
    return this.opts.fields ? this.opts.fields.project(value) : value;
  }

  private printJq(value: unknown, pretty: boolean): void {
    const out = this.opts.jq!.apply(value, pretty);
    if (out !== '') this.line(out.replace(/\n$/, ''));
  }

  /**
   * A table on a terminal, fitted to its width (one line per row, cut cells end in …); tab-separated rows without
   * a header in a pipe.
   */
  async table<Row>(rows: Row[], columns: Column<Row>[], opts: { emptyMessage?: string } = {}): Promise<void> {
    const text = (v: unknown) => (v === undefined || v === null ? '' : String(v)).replace(/[\t\r\n]+/g, ' ');
    // on a terminal a cell is measured and cut after it was made safe (a stand-in is one column wide)
    const cell = this.stdoutIsTTY ? (v: unknown) => terminalSafe(text(v)) : text;
    if (!this.stdoutIsTTY) {
      for (const row of rows) this.line(columns.map((col) => cell(col.get(row))).join('\t'));
      return;
    }
    if (rows.length === 0) {
      this.info(opts.emptyMessage ?? 'nothing to show');
      return;
    }
    const { renderTable } = await import('./table.js');
    const width = this.streams.stdout.columns || Number(readEnv(this.opts.env, 'COLUMNS')) || Infinity;
    const { lines, dropped } = renderTable(
      columns,
      rows.map((row) => columns.map((col) => cell(col.get(row)))),
      width,
      (h) => this.c.bold(h),
    );
    this.line(lines.join('\n'));
    if (dropped.length > 0) {
      const { wrapStyled } = await import('./wrap.js');
      const note = `not shown at ${width} columns: ${dropped.join(', ')} (a wider terminal or --json shows them)`;
      this.info(wrapStyled(note, width - 1).join('\n'));
    }
  }

  /** Key/value details of one object (human form). */
  details(pairs: [string, unknown][]): void {
    const width = Math.max(0, ...pairs.map(([k]) => k.length));
    for (const [k, v] of pairs) {
      if (v === undefined) continue;
      const shown = v === null ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v);
      if (this.stdoutIsTTY) this.line(`${this.c.dim(k.padEnd(width))}  ${shown}`);
      else this.line(`${k}\t${shown}`);
    }
  }

  /** Progress and notes for people: stderr, silenced by --quiet. */
  info(message: string): void {
    if (!this.opts.quiet) this.toStderr(`${message}\n`);
  }

  /** A note the user asked for by a flag (-u/--usage): on stderr even with -q, which silences only the unasked. */
  asked(message: string): void {
    this.toStderr(message + '\n');
  }

  warn(message: string): void {
    this.toStderr(`${this.ce.yellow('warning:')} ${message}\n`);
  }

  error(message: string): void {
    this.toStderr(`${this.ce.red('error:')} ${message}\n`);
  }

  /** Raw text to stderr (reasoning traces, live transcripts). */
  stderrWrite(text: string): void {
    this.toStderr(text);
  }

  /**
   * A spinner on stderr: live on a terminal that can be redrawn; on a terminal that cannot (0 columns, TERM=dumb)
   * the text once and the outcome line, never a redraw; nothing in a pipe or with --quiet.
   */
  async spinner(text: string): Promise<Spinner> {
    if (!this.stderrIsTTY || this.opts.quiet) return noopSpinner;
    const ce = this.ce;
    const done = (symbol: string, t: string | undefined, fallback: string) => `${symbol} ${t ?? fallback}\n`;
    if (!this.liveStderr) {
      let current = text;
      let ended = false;
      this.streams.stderr.write(`${text}\n`);
      const end = (line: string) => {
        if (!ended) this.streams.stderr.write(line);
        ended = true;
      };
      return {
        update: (t) => void (current = t),
        succeed: (t) => end(done(ce.green('✔'), t, current)),
        fail: (t) => end(done(ce.red('✖'), t, current)),
        stop: () => void (ended = true),
      };
    }
    const [{ default: ora }, { cutStyled }] = await Promise.all([import('ora'), import('./wrap.js')]);
    // one row, never wrapped (a wrapped spinner is redrawn below itself): the frame, a space, the text, the cursor
    const oneRow = (t: string) => cutStyled(t, (this.streams.stderr.columns ?? 80) - 3);
    // frames coloured by our decision; ora's own colouring (its chalk) stays off
    const s = ora({
      text: oneRow(text),
      stream: this.streams.stderr as NodeJS.WritableStream,
      color: false,
      isEnabled: true,
      spinner: { interval: 80, frames: DOTS.map((f) => ce.cyan(f)) },
    });
    s.start();
    return {
      update: (t) => {
        s.text = oneRow(t);
      },
      succeed: (t) => void s.stopAndPersist({ symbol: ce.green('✔'), text: t === undefined ? t : oneRow(t) }),
      fail: (t) => void s.stopAndPersist({ symbol: ce.red('✖'), text: t === undefined ? t : oneRow(t) }),
      stop: () => void s.stop(),
    };
  }
}

/** Human-friendly byte counts. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function formatUnixTime(sec: number | null | undefined): string {
  if (sec === null || sec === undefined) return '-';
  return isoTime(sec * 1000).replace('.000Z', 'Z');
}
