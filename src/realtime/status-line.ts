// The live status line of `svc realtime talk` on a terminal: the input level, who is speaking, and the last
// turn's latencies. It goes to stderr, only when stderr can be redrawn (Output.liveStderr: a terminal of known
// width, not TERM=dumb, not -q); in a pipe nothing of it is written. It lives on the row below the cursor, so the
// transcript (stdout, often the same terminal) keeps streaming on its own line: before anything else is written
// the status row is cleared, and it is drawn again after. IND/RI (ESC D / ESC M) move down/up without losing the
// column and scroll at the bottom; DECSC/DECRC (ESC 7 / ESC 8) bring the cursor back.
import type { Colors } from '../term/color.js';
import { truncate } from '../term/table.js';
import type { TranscriptOut } from './transcript.js';
import type { TurnLatency } from './turn-meter.js';

export interface StatusState {
  levelDb: number;
  speaker: 'you' | 'assistant' | 'nobody';
  /** the microphone is held back (half-duplex while the assistant speaks) */
  muted: boolean;
  last: TurnLatency | undefined;
  /** the clock drift the echo canceller measured between the speaker and the microphone (--aec), once it has */
  driftPpm?: number;
}

export interface StatusStream {
  write(text: string): unknown;
  columns?: number;
}

const BAR = 10;
/** the level bar spans −60 … 0 dBFS */
const FLOOR_DB = -60;

/** The status text for `cols` columns: parts give way (the long latency form, then the bar) on a narrow terminal. */
export function statusText(s: StatusState, c: Colors, cols: number): string {
  const db = Number.isFinite(s.levelDb) ? Math.max(FLOOR_DB, s.levelDb) : FLOOR_DB;
  const filled = Math.round(((db - FLOOR_DB) / -FLOOR_DB) * BAR);
  const shown = db <= FLOOR_DB ? '-inf' : String(Math.round(db));
  const level = `mic ${c.cyan('#'.repeat(filled))}${'.'.repeat(BAR - filled)} ${shown} dB`;
  const who =
    s.speaker === 'you'
      ? c.green('you are speaking')
      : s.speaker === 'assistant'
        ? c.yellow(`assistant is speaking${s.muted ? ' (mic muted)' : ''}`)
        : 'listening';
  const drift = s.driftPpm === undefined ? '' : `drift ${s.driftPpm >= 0 ? '+' : ''}${Math.round(s.driftPpm)} ppm`;
  const variants = [
    [level, who, drift, turnText(s.last, true)],
    [level, who, drift, turnText(s.last, false)],
    [who, turnText(s.last, false)],
    [who],
  ];
  for (const v of variants) {
    const text = v.filter(Boolean).join(' | ');
    if (visible(text).length <= cols - 1) return text;
  }
  return truncate(visible(who), cols - 1);
}

const ms = (v: number | null) => (v === null ? '?' : `${Math.round(v)} ms`);

function turnText(t: TurnLatency | undefined, long: boolean): string {
  if (!t) return '';
  const head =
    t.speech_end_to_first_audio_ms !== null
      ? `turn ${t.turn}: end of speech -> first audio ${ms(t.speech_end_to_first_audio_ms)}`
      : `turn ${t.turn}: first audio after ${ms(t.response_ms)}`;
  const out = t.first_audio_to_device_ms !== null ? `, -> device ${ms(t.first_audio_to_device_ms)}` : '';
  if (!long) return `${head}${out}`;
  const parts = [t.vad_ms !== null ? `vad ${ms(t.vad_ms)}` : '', `server ${ms(t.response_ms)}`].filter(Boolean);
  return `${head} (${parts.join(' + ')})${out}`;
}

/** text without colour sequences (for its width) */
function visible(s: string): string {
  return s.replace(/\u001b\[[0-9;]*m/g, '');
}

export class StatusLine {
  private drawn = false;
  private lastText = '';
  private timer: NodeJS.Timeout | undefined;
  private held = false;

  constructor(
    private readonly stderr: StatusStream,
    private readonly state: () => StatusState,
    private readonly colors: Colors,
  ) {}

  /** Redraw every `intervalMs` (the level moves with every frame; drawing is throttled to this). */
  start(intervalMs = 100): void {
    this.draw();
    this.timer = setInterval(() => this.draw(), intervalMs);
    this.timer.unref();
    // a second Ctrl-C quits at once: the line goes with the process
    process.on('exit', this.onExit);
  }

  private readonly onExit = () => this.erase();

  draw(): void {
    if (this.held) return;
    const text = statusText(this.state(), this.colors, this.stderr.columns || 80);
    if (this.drawn && text === this.lastText) return;
    // make sure the row below exists (scrolling at the bottom), then write it and come back
    this.stderr.write(`\u001bD\u001bM\u001b7\u001bD\r${text}\u001b[K\u001b8`);
    this.drawn = true;
    this.lastText = text;
  }

  erase(): void {
    if (!this.drawn) return;
    this.stderr.write('\u001b7\u001bD\r\u001b[K\u001b8');
    this.drawn = false;
  }

  /**
   * A question waits on the terminal (--approve): the line goes and is not drawn until it was answered, so that the
   * answer typed and its newline land on a row of their own.
   */
  hold(on: boolean): void {
    this.held = on;
    if (on) this.erase();
    else if (this.timer) this.draw();
  }

  /** Around another write to the terminal: the status row is cleared first and drawn again after. */
  around(write: () => void): void {
    this.erase();
    try {
      write();
    } finally {
      if (this.timer) this.draw();
    }
  }

  /** A writer whose writes go around the status line (the transcript). */
  wrap(out: TranscriptOut): TranscriptOut {
    return {
      isTTY: out.isTTY,
      write: (text: string) => {
        let r: unknown;
        this.around(() => {
          r = out.write(text);
        });
        return r;
      },
    };
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    process.removeListener('exit', this.onExit);
    this.erase();
  }
}
