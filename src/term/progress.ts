// A byte progress bar on stderr, drawn only on a terminal that can be redrawn (never in a pipe, never with --quiet,
// never on a terminal of 0 columns or TERM=dumb). The bar itself takes the output's colour decision.
import { formatBytes, type Output } from './output.js';
import { truncate } from './table.js';

export interface Progress {
  update(done: number, total?: number): void;
  /** erase the bar */
  done(): void;
}

const noop: Progress = { update() {}, done() {} };

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
    const cols = stderr.columns || 80;
    const secs = Math.max(0.001, (now() - started) / 1000);
    const rate = `${formatBytes(Math.round(current / secs))}/s`;
    let text: string;
    if (size && size > 0) {
      const frac = Math.min(1, current / size);
      const pct = `${Math.floor(frac * 100)}%`.padStart(4);
      // on a narrow terminal the rate, then the byte counts, give way before the bar does
      const tails = [
        ` ${pct} ${formatBytes(current)}/${formatBytes(size)} ${rate}`,
        ` ${pct} ${formatBytes(current)}/${formatBytes(size)}`,
        ` ${pct}`,
      ];
      const tail = tails.find((t) => label.length + t.length + 14 <= cols) ?? tails[2]!;
      const width = Math.max(10, Math.min(30, cols - label.length - tail.length - 4));
      const filled = Math.round(frac * width);
      const name = truncate(label, cols - 1 - tail.length - width - 3);
      text = `${name} [${out.ce.cyan('#'.repeat(filled))}${'-'.repeat(width - filled)}]${tail}`;
    } else {
      const tail = ` ${formatBytes(current)} ${rate}`;
      text = `${truncate(label, cols - 1 - tail.length)}${tail}`;
    }
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
