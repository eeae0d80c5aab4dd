// The emulator's server VAD: energy based, measured on the audio's own clock (samples received), not the
// wall clock, so the same input always gives the same turns whatever the pacing of the client.

export interface VadOptions {
  /** 0.0 to 1.0; lower is more sensitive */
  threshold: number;
  /** silence that ends a turn */
  silenceMs: number;
  /** audio kept before the detected start */
  prefixMs: number;
}

export type VadEvent = { type: 'start'; atMs: number } | { type: 'stop'; atMs: number; audio: Int16Array };

const FRAME_MS = 20;

/** RMS level (0..1) above which a 20 ms frame counts as voiced. */
export function rmsGate(threshold: number): number {
  return 0.002 + 0.06 * Math.min(1, Math.max(0, threshold));
}

/** the longest turn the emulator holds: a turn of speech (or a manual buffer) is bounded so its memory is */
export const MAX_TURN_SECONDS = 120;

export class EnergyVad {
  private readonly frame: number;
  private leftover = new Int16Array(0);
  /** samples consumed so far (the audio clock) */
  private consumed = 0;
  private inSpeech = false;
  private silentSamples = 0;
  private speech: Int16Array[] = [];
  private speechSamples = 0;
  /** recent frames for the prefix padding */
  private recent: Int16Array[] = [];

  constructor(
    readonly rate: number,
    public opts: VadOptions,
  ) {
    this.frame = Math.max(1, Math.round((rate * FRAME_MS) / 1000));
  }

  get speaking(): boolean {
    return this.inSpeech;
  }

  /** The audio clock in ms. */
  get nowMs(): number {
    return Math.round((this.consumed * 1000) / this.rate);
  }

  /** Feed samples; returns the turn boundaries they cross. */
  push(pcm: Int16Array): VadEvent[] {
    const events: VadEvent[] = [];
    const all = this.leftover.length ? concat([this.leftover, pcm]) : pcm;
    let off = 0;
    const gate = rmsGate(this.opts.threshold);
    for (; off + this.frame <= all.length; off += this.frame) {
      const f = all.subarray(off, off + this.frame);
      const voiced = rms(f) > gate;
      const startMs = Math.round((this.consumed * 1000) / this.rate);
      this.consumed += f.length;
      if (!this.inSpeech) {
        if (voiced) {
          this.inSpeech = true;
          this.silentSamples = 0;
          this.speech = [...this.recent, f.slice()];
          this.speechSamples = 0;
          this.recent = [];
          events.push({ type: 'start', atMs: startMs });
        } else {
          this.recent.push(f.slice());
          const keep = Math.max(0, Math.ceil(this.opts.prefixMs / FRAME_MS));
          while (this.recent.length > keep) this.recent.shift();
        }
        continue;
      }
      this.speech.push(f.slice());
      this.speechSamples += f.length;
      this.silentSamples = voiced ? 0 : this.silentSamples + f.length;
      const silent = (this.silentSamples * 1000) / this.rate >= Math.max(FRAME_MS, this.opts.silenceMs);
      // speech that never pauses ends its turn at the bound, as a pause would
      if (silent || this.speechSamples >= this.rate * MAX_TURN_SECONDS) {
        const audio = concat(this.speech);
        this.inSpeech = false;
        this.speech = [];
        this.silentSamples = 0;
        events.push({ type: 'stop', atMs: this.nowMs, audio });
      }
    }
    this.leftover = all.slice(off);
    return events;
  }

  /** Drop what was heard (input_audio_buffer.clear). */
  reset(): void {
    this.leftover = new Int16Array(0);
    this.inSpeech = false;
    this.speech = [];
    this.recent = [];
    this.silentSamples = 0;
  }
}

export function rms(f: Int16Array): number {
  if (f.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < f.length; i++) {
    const v = f[i]! / 32768;
    sum += v * v;
  }
  return Math.sqrt(sum / f.length);
}

export function concat(parts: Int16Array[]): Int16Array {
  const n = parts.reduce((a, p) => a + p.length, 0);
  const out = new Int16Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
