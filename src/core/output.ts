// The output layer: stdout is data, stderr is everything else. Tables and colour on a terminal, plain
// tab-separated lines in a pipe, JSON / NDJSON with --json, spinners only on a terminal's stderr.
import { colorWanted, makeColors, type Colors } from './color.js';

export interface Streams {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

export interface OutputOptions {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  color: boolean | undefined;
  env: NodeJS.ProcessEnv;
}

export interface Column<Row> {
  header: string;
  get: (row: Row) => unknown;
  align?: 'left' | 'right';
}

export interface Spinner {
  update(text: string): void;
  succeed(text?: string): void;
  fail(text?: string): void;
  stop(): void;
}

const noopSpinner: Spinner = { update() {}, succeed() {}, fail() {}, stop() {} };

export class Output {
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** colours for stdout text */
  readonly c: Colors;
  /** colours for stderr text */
  readonly ce: Colors;
  /** set when something (a partial line) was written to stdout without a final newline */
  private stdoutMidLine = false;

  constructor(readonly streams: Streams, readonly opts: OutputOptions) {
    this.stdoutIsTTY = !!streams.stdout.isTTY;
    this.stderrIsTTY = !!streams.stderr.isTTY;
    this.c = makeColors(colorWanted(this.stdoutIsTTY, opts.env, opts.color));
    this.ce = makeColors(colorWanted(this.stderrIsTTY, opts.env, opts.color));
  }

  get json(): boolean {
    return this.opts.json;
  }

  /** Raw data to stdout (streamed text, bytes). */
  write(chunk: string | Uint8Array): void {
    if (typeof chunk === 'string') {
      if (chunk.length === 0) return;
      this.stdoutMidLine = !chunk.endsWith('\n');
    } else if (chunk.length > 0) {
      this.stdoutMidLine = chunk[chunk.length - 1] !== 0x0a;
    }
    this.streams.stdout.write(chunk);
  }

  /** One line of data to stdout. */
  line(text = ''): void {
    this.write(text + '\n');
  }

  /** End a partially written stdout line (after streamed text). */
  endLine(): void {
    if (this.stdoutMidLine) this.write('\n');
  }

  /** One JSON value: pretty on a terminal, one compact line in a pipe. */
  printJson(value: unknown): void {
    this.line(this.stdoutIsTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value));
  }

  /** One JSON value per line (list entries, stream events). */
  printJsonLine(value: unknown): void {
    this.line(JSON.stringify(value));
  }

  /** A table on a terminal; tab-separated rows without a header in a pipe. */
  async table<Row>(rows: Row[], columns: Column<Row>[], opts: { emptyMessage?: string } = {}): Promise<void> {
    const cell = (v: unknown) => (v === undefined || v === null ? '' : String(v));
    if (!this.stdoutIsTTY) {
      for (const row of rows) this.line(columns.map((col) => cell(col.get(row)).replace(/[\t\n]/g, ' ')).join('\t'));
      return;
    }
    if (rows.length === 0) {
      this.info(opts.emptyMessage ?? 'nothing to show');
      return;
    }
    const { default: Table } = await import('cli-table3');
    const table = new Table({
      head: columns.map((col) => this.c.bold(col.header)),
      style: { head: [], border: [] },
      colAligns: columns.map((col) => col.align ?? 'left'),
      chars: borderless,
    });
    for (const row of rows) table.push(columns.map((col) => cell(col.get(row))));
    this.line(table.toString());
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
    if (!this.opts.quiet) this.streams.stderr.write(message + '\n');
  }

  warn(message: string): void {
    this.streams.stderr.write(`${this.ce.yellow('warning:')} ${message}\n`);
  }

  error(message: string): void {
    this.streams.stderr.write(`${this.ce.red('error:')} ${message}\n`);
  }

  /** Raw text to stderr (reasoning traces, live transcripts). */
  stderrWrite(text: string): void {
    this.streams.stderr.write(text);
  }

  /** A spinner on stderr when it is a terminal (and not --quiet); a no-op otherwise. */
  async spinner(text: string): Promise<Spinner> {
    if (!this.stderrIsTTY || this.opts.quiet) return noopSpinner;
    const { default: ora } = await import('ora');
    const s = ora({ text, stream: this.streams.stderr as NodeJS.WritableStream, color: 'cyan', isEnabled: true });
    s.start();
    return {
      update: (t) => {
        s.text = t;
      },
      succeed: (t) => void s.succeed(t),
      fail: (t) => void s.fail(t),
      stop: () => void s.stop(),
    };
  }
}

const borderless = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '',
  right: '', 'right-mid': '', middle: '  ',
};

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
  return new Date(sec * 1000).toISOString().replace('.000Z', 'Z');
}
