// A byte progress bar on stderr, drawn only on a terminal that can be redrawn (never in a pipe, never with --quiet,
// never on a terminal of 0 columns or TERM=dumb). The bar itself takes the output's colour decision.
import { formatBytes, type Output } from './output.js';
import { displayWidth, truncate } from './table.js';

export interface Progress {
  update(done: number, total?: number): void;
  /** erase the bar */
  done(): void;
}

const noop: Progress = { update() {}, done() {} };

/** A time left: 42s, 3m05s, 1h02m. */
export function formatEta(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** the name keeps at least this many columns before the figures give way */
const NAME_MIN = 10;
const BAR_MIN = 10;
const BAR_MAX = 30;

/**
 * The bar's line for `cols` columns: the name (cut with …), the bar, the percentage, the bytes, the rate and the time
 * left. On a narrow terminal the byte counts give way first, then the bar, then the rate; the percentage and the
 * time left stay.
 */
export function barLine(
  label: string,
  done: number,
  size: number | undefined,
  secs: number,
  cols: number,
  fill: (s: string) => string = (s) => s,
): string {
  const perSec = done / Math.max(0.001, secs);
  const rate = `${formatBytes(Math.round(perSec))}/s`;
  const nameRoom = Math.min(displayWidth(label), NAME_MIN);
  if (!size || size <= 0) {
    const tail = ` ${formatBytes(done)} ${rate}`;
    return `${truncate(label, cols - 1 - tail.length)}${tail}`;
  }
  const frac = Math.min(1, done / size);
  const pct = `${Math.floor(frac * 100)}%`.padStart(4);
  const eta = perSec > 0 && done < size ? ` ETA ${formatEta((size - done) / perSec)}` : '';
  const bytes = ` ${formatBytes(done)}/${formatBytes(size)}`;
  const variants: [tail: string, bar: boolean][] = [
    [` ${pct}${bytes} ${rate}${eta}`, true],
    [` ${pct} ${rate}${eta}`, true],
    [` ${pct} ${rate}${eta}`, false],
    [` ${pct}${eta}`, false],
    [` ${pct}`, false],
  ];
  const [tail, bar] =
    variants.find(([t, b]) => nameRoom + (b ? BAR_MIN + 3 : 0) + t.length <= cols - 1) ?? variants.at(-1)!;
  if (!bar) return `${truncate(label, cols - 1 - tail.length)}${tail}`;
  // the name whole before the bar grows past its least
  const width = Math.max(BAR_MIN, Math.min(BAR_MAX, cols - 1 - displayWidth(label) - 3 - tail.length));
  const filled = Math.round(frac * width);
  const name = truncate(label, cols - 1 - tail.length - width - 3);
  return `${name} [${fill('#'.repeat(filled))}${'-'.repeat(width - filled)}]${tail}`;
}

export function progressBar(
  out: Output,
  label: string,
  total?: number,
  opts: { now?: () => number; intervalMs?: number } = {},
): Progress {
  if (!out.liveStderr) return noop;
  const stderr = out.streams.stderr;
  const now = opts.now ?? Date.now;
  const interval = opts.intervalMs ?? 100;
  const started = now();
  let last = 0;
  let drawn = false;
  let current = 0;
  let size = total;
  const draw = () => {
    const text = barLine(label, current, size, (now() - started) / 1000, stderr.columns || 80, out.ce.cyan);
    stderr.write(`\r${text}\u001b[K`);
    drawn = true;
  };
  return {
    update(done, t) {
      current = done;
      if (t !== undefined) size = t;
      const n = now();
      if (n - last >= interval || (size !== undefined && done >= size)) {
        last = n;
        draw();
      }
    },
    done() {
      if (drawn) stderr.write('\r\u001b[K');
      drawn = false;
    },
  };
}

/**
 * A line of status on stderr redrawn in place (a batch's rows/s, ETA, spend), at most every `intervalMs`; nothing
 * where the bar would not be drawn either.
 */
export function statusLine(out: Output, opts: { now?: () => number; intervalMs?: number } = {}) {
  if (!out.liveStderr) return { set(_text: () => string, _force?: boolean) {}, done() {} };
  const stderr = out.streams.stderr;
  const now = opts.now ?? Date.now;
  let last = 0;
  let drawn = false;
  return {
    set(text: () => string, force = false) {
      const n = now();
      if (!force && n - last < (opts.intervalMs ?? 100)) return;
      last = n;
      stderr.write(`\r${truncate(text(), (stderr.columns || 80) - 1)}\u001b[K`);
      drawn = true;
    },
    done() {
      if (drawn) stderr.write('\r\u001b[K');
      drawn = false;
    },
  };
}
