// Energy-based voice activity detection for the emulator's speech to text: audio that is not tone-coded
// text (see tones.ts) is transcribed as its voiced segments with their timings.
import { toFloat } from './tones.js';

export interface Segment {
  /** seconds */
  start: number;
  end: number;
  /** mean level of the segment, 0-1 (RMS of full scale) */
  level: number;
}

export interface VadOptions {
  /** analysis frame (ms, default 10) */
  frameMs?: number;
  /** shorter bursts are ignored (ms, default 60) */
  minSpeechMs?: number;
  /** shorter pauses do not split a segment (ms, default 250) */
  minSilenceMs?: number;
  /** absolute floor of the speech level, RMS of full scale (default 0.01, about -40 dBFS) */
  floor?: number;
}

/** RMS of each frame (full scale = 1). */
export function frameLevels(pcm: Uint8Array, sampleRate: number, frameMs = 10): Float32Array {
  const x = toFloat(pcm);
  const hop = Math.max(1, Math.round((sampleRate * frameMs) / 1000));
  const n = Math.floor(x.length / hop);
  const out = new Float32Array(n);
  for (let f = 0; f < n; f++) {
    let s = 0;
    for (let i = f * hop; i < (f + 1) * hop; i++) s += x[i]! * x[i]!;
    out[f] = Math.sqrt(s / hop);
  }
  return out;
}

/** Voiced segments of PCM s16le mono. The threshold adapts to the loudest part (a tenth of it), with a floor. */
export function voicedSegments(pcm: Uint8Array, sampleRate: number, opts: VadOptions = {}): Segment[] {
  const frameMs = opts.frameMs ?? 10;
  const levels = frameLevels(pcm, sampleRate, frameMs);
  if (levels.length === 0) return [];
  const sorted = Float32Array.from(levels).sort();
  const loud = sorted[Math.floor(sorted.length * 0.95)] ?? 0;
  const thr = Math.max(opts.floor ?? 0.01, loud * 0.1);
  const minSpeech = Math.ceil((opts.minSpeechMs ?? 60) / frameMs);
  const minSilence = Math.ceil((opts.minSilenceMs ?? 250) / frameMs);
  const segs: { a: number; b: number }[] = [];
  let start = -1;
  let lastOn = -1;
  for (let f = 0; f < levels.length; f++) {
    if (levels[f]! >= thr) {
      if (start < 0) start = f;
      else if (f - lastOn - 1 >= minSilence) {
        segs.push({ a: start, b: lastOn + 1 });
        start = f;
      }
      lastOn = f;
    }
  }
  if (start >= 0) segs.push({ a: start, b: lastOn + 1 });
  return segs
    .filter((s) => s.b - s.a >= minSpeech)
    .map((s) => {
      let sum = 0;
      for (let f = s.a; f < s.b; f++) sum += levels[f]!;
      return { start: round2((s.a * frameMs) / 1000), end: round2((s.b * frameMs) / 1000), level: sum / (s.b - s.a) };
    });
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

/**
 * Streaming end-pointer: fed frame levels as audio arrives, it says when speech started and how long the
 * current silence has lasted.
 */
export class Endpointer {
  inSpeech = false;
  /** ms of silence since the last voiced frame (while inSpeech) */
  silenceMs = 0;
  private voicedMs = 0;

  constructor(
    private readonly floor = 0.01,
    private readonly minSpeechMs = 30,
  ) {}

  /** Feed the level of `ms` of audio. Returns 'start' when speech begins. */
  push(level: number, ms: number): 'start' | undefined {
    if (level >= this.floor) {
      this.voicedMs += ms;
      this.silenceMs = 0;
      if (!this.inSpeech && this.voicedMs >= this.minSpeechMs) {
        this.inSpeech = true;
        return 'start';
      }
    } else {
      if (!this.inSpeech) this.voicedMs = 0;
      else this.silenceMs += ms;
    }
    return undefined;
  }

  reset(): void {
    this.inSpeech = false;
    this.silenceMs = 0;
    this.voicedMs = 0;
  }
}
