// The emulator's "voice": text is spoken as tones that its speech-to-text decodes again, so tts → stt round
// trips can be asserted through real audio bytes in every codec.
//
// Each UTF-8 byte of the text is one symbol: two simultaneous tones, the high nibble on a low frequency grid
// (600-1650 Hz, 70 Hz apart) and the low nibble on a high grid (1900-3100 Hz, 80 Hz apart), 60 ms long
// (divided by the speed) with soft 5 ms edges, then 20 ms of silence. Everything stays below 3.2 kHz, so the
// symbols survive 8 kHz telephone rates, mu-law/A-law and MP3. Decoding finds the bursts by their energy and
// measures the 32 frequencies with Goertzel filters over the middle of each burst; a burst whose energy is not
// concentrated on one frequency of each grid is not a symbol (speech, noise).

export const LOW_GRID = Array.from({ length: 16 }, (_, i) => 600 + 70 * i);
export const HIGH_GRID = Array.from({ length: 16 }, (_, i) => 1900 + 80 * i);
export const TONE_MS = 60;
export const GAP_MS = 20;
const EDGE_MS = 5;
const AMPLITUDE = 0.35; // per tone; two tones peak at 0.7 full scale

export interface ToneOptions {
  /** 0.7-1.5: tones get shorter as speech gets faster */
  speed?: number;
  /** silence before the first symbol (ms, default 60) */
  leadMs?: number;
  /** silence after the last symbol (ms, default 120) */
  tailMs?: number;
  /** 0-1 scale of the loudness (default 1) */
  volume?: number;
}

export interface CharTiming {
  char: string;
  /** seconds from the start of the returned audio */
  start: number;
  end: number;
}

/**
 * One symbol's samples, computed once per byte, rate, length and loudness: the sines were most of the emulator's CPU
 * when it speaks (a long TTS reply, every realtime answer), and a reply draws on at most a few dozen symbols.
 */
const symbols = new Map<string, Int16Array>();
const MAX_SYMBOLS = 2048; // ~6 MB at 24 kHz

function symbol(byte: number, sampleRate: number, toneLen: number, edge: number, amp: number): Int16Array {
  const key = `${byte} ${sampleRate} ${toneLen} ${edge} ${amp}`;
  const known = symbols.get(key);
  if (known) return known;
  const f1 = LOW_GRID[byte >> 4]!;
  const f2 = HIGH_GRID[byte & 15]!;
  const s = new Int16Array(toneLen);
  for (let i = 0; i < toneLen; i++) {
    const env =
      i < edge
        ? 0.5 - 0.5 * Math.cos((Math.PI * i) / edge)
        : i >= toneLen - edge
          ? 0.5 - 0.5 * Math.cos((Math.PI * (toneLen - 1 - i)) / edge)
          : 1;
    const t = i / sampleRate;
    s[i] = Math.round(amp * env * (Math.sin(2 * Math.PI * f1 * t) + Math.sin(2 * Math.PI * f2 * t)));
  }
  if (symbols.size >= MAX_SYMBOLS) symbols.clear();
  symbols.set(key, s);
  return s;
}

/**
 * Text → PCM s16le mono at `sampleRate`, with the time span of every character (graph_chars / graph_times of
 * the TTS timestamps).
 */
export function synthesize(
  text: string,
  sampleRate: number,
  opts: ToneOptions = {},
): { pcm: Buffer; chars: CharTiming[] } {
  const speed = opts.speed ?? 1;
  const toneLen = Math.round((sampleRate * TONE_MS) / speed / 1000);
  const gapLen = Math.round((sampleRate * GAP_MS) / 1000);
  const lead = Math.round((sampleRate * (opts.leadMs ?? 60)) / 1000);
  const tail = Math.round((sampleRate * (opts.tailMs ?? 120)) / 1000);
  const edge = Math.max(1, Math.round((sampleRate * EDGE_MS) / 1000));
  const chars = [...text];
  const bytes = chars.map((c) => Buffer.from(c, 'utf8'));
  const nSym = bytes.reduce((a, b) => a + b.length, 0);
  const total = lead + nSym * (toneLen + gapLen) + tail;
  const out = new Int16Array(total);
  const amp = AMPLITUDE * (opts.volume ?? 1) * 32767;
  const timings: CharTiming[] = [];
  let pos = lead;
  for (let ci = 0; ci < chars.length; ci++) {
    const start = pos;
    for (const byte of bytes[ci]!) {
      out.set(symbol(byte, sampleRate, toneLen, edge, amp), pos);
      pos += toneLen + gapLen;
    }
    timings.push({ char: chars[ci]!, start: round2(start / sampleRate), end: round2((pos - gapLen) / sampleRate) });
  }
  return { pcm: Buffer.from(out.buffer, out.byteOffset, out.byteLength), chars: timings };
}

/** Text → PCM s16le mono tones (see `synthesize`). */
export function textToTones(text: string, sampleRate: number, opts: ToneOptions = {}): Buffer {
  return synthesize(text, sampleRate, opts).pcm;
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

/** Power of one frequency over x[start, start+n) (Goertzel). */
export function goertzel(x: Float32Array, start: number, n: number, freq: number, sampleRate: number): number {
  const coeff = 2 * Math.cos((2 * Math.PI * freq) / sampleRate);
  let s1 = 0;
  let s2 = 0;
  for (let i = start; i < start + n; i++) {
    const s = x[i]! + coeff * s1 - s2;
    s2 = s1;
    s1 = s;
  }
  return s1 * s1 + s2 * s2 - coeff * s1 * s2;
}

export function toFloat(pcm: Uint8Array): Float32Array {
  const n = Math.floor(pcm.length / 2);
  const view = new DataView(pcm.buffer, pcm.byteOffset, n * 2);
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = view.getInt16(i * 2, true) / 32768;
  return x;
}

export interface Burst {
  /** seconds */
  start: number;
  end: number;
  /** the byte it carries, when it is a clean dual tone */
  byte?: number;
  /** share of the burst's energy on the two strongest grid frequencies (1 = pure) */
  purity: number;
}

const PURITY_MIN = 0.7;

/** Find energy bursts (after `fromSec`) and classify each as a symbol or not. */
export function findBursts(x: Float32Array, sampleRate: number): Burst[] {
  const hop = Math.max(1, Math.round(sampleRate / 400)); // 2.5 ms
  const frames = Math.floor(x.length / hop);
  if (frames === 0) return [];
  const rms = new Float32Array(frames);
  for (let f = 0; f < frames; f++) {
    let s = 0;
    for (let i = f * hop; i < (f + 1) * hop; i++) s += x[i]! * x[i]!;
    rms[f] = Math.sqrt(s / hop);
  }
  const sorted = Float32Array.from(rms).sort();
  const peak = sorted[Math.floor(sorted.length * 0.98)] ?? 0;
  const thr = Math.max(0.2 * peak, 0.004);
  const runs: [number, number][] = [];
  let runStart = -1;
  for (let f = 0; f <= frames; f++) {
    const on = f < frames && rms[f]! >= thr;
    if (on && runStart < 0) runStart = f;
    else if (!on && runStart >= 0) {
      runs.push([runStart, f]);
      runStart = -1;
    }
  }
  const minFrames = Math.round(15 / 2.5); // 15 ms
  const long = runs.filter(([a, b]) => b - a >= minFrames);
  if (long.length === 0) return [];
  // Two symbols merged by smearing (a gap lost in a lossy codec): split runs much longer than the usual one.
  const lens = long.map(([a, b]) => b - a).sort((p, q) => p - q);
  const typical = lens[Math.floor(lens.length / 2)]!;
  const bursts: Burst[] = [];
  for (const [a, b] of long) {
    const len = b - a;
    const gapFrames = GAP_MS / 2.5;
    const k =
      typical >= minFrames && len > 1.6 * typical
        ? Math.max(1, Math.round((len + gapFrames) / (typical + gapFrames)))
        : 1;
    const piece = (len + gapFrames) / k;
    for (let j = 0; j < k; j++) {
      const s = Math.round(a + j * piece);
      const e = j === k - 1 ? b : Math.round(a + j * piece + piece - gapFrames);
      bursts.push(classify(x, sampleRate, s * hop, e * hop));
    }
  }
  return bursts;
}

function classify(x: Float32Array, sampleRate: number, s: number, e: number): Burst {
  const len = e - s;
  const trim = Math.max(Math.round(sampleRate * 0.006), Math.round(len * 0.15));
  const start = s + trim;
  const n = Math.max(1, len - 2 * trim);
  let energy = 0;
  for (let i = start; i < start + n; i++) energy += x[i]! * x[i]!;
  const best = (grid: number[]) => {
    let bi = 0;
    let bp = -1;
    let second = 0;
    grid.forEach((f, i) => {
      const p = goertzel(x, start, n, f, sampleRate);
      if (p > bp) {
        second = bp;
        bp = p;
        bi = i;
      } else if (p > second) second = p;
    });
    return { i: bi, p: bp, distinct: bp > 4 * Math.max(0, second) };
  };
  const lo = best(LOW_GRID);
  const hi = best(HIGH_GRID);
  const purity = energy > 0 ? Math.min(1, ((2 / n) * (lo.p + hi.p)) / energy) : 0;
  // both tones must be present at comparable strength
  const balanced =
    lo.distinct && hi.distinct && lo.p > 0 && hi.p > 0 && Math.min(lo.p, hi.p) / Math.max(lo.p, hi.p) > 0.15;
  return {
    start: s / sampleRate,
    end: e / sampleRate,
    purity,
    byte: purity >= PURITY_MIN && balanced ? (lo.i << 4) | hi.i : undefined,
  };
}

export interface DecodedTones {
  text: string;
  chars: CharTiming[];
  /** bursts that were not symbols (speech or noise) */
  other: { start: number; end: number }[];
}

/** PCM s16le mono → the text its tones carry, with character timings (seconds, plus `offsetSec`). */
export function transcribeTones(pcm: Uint8Array, sampleRate: number, offsetSec = 0): DecodedTones {
  const bursts = findBursts(toFloat(pcm), sampleRate);
  const chars: CharTiming[] = [];
  const other: { start: number; end: number }[] = [];
  let pending: number[] = [];
  let pendingStart = 0;
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const flush = (end: number) => {
    if (!pending.length) return;
    const text = decoder.decode(Uint8Array.from(pending));
    // a multi-byte character shares its span between its bytes' bursts
    for (const ch of text) {
      // control characters are never spoken: a burst that decodes to one was not a symbol
      if (ch < ' ' && ch !== '\n' && ch !== '\t') continue;
      if (ch === '\ufffd') continue;
      chars.push({ char: ch, start: round2(pendingStart + offsetSec), end: round2(end + offsetSec) });
    }
    pending = [];
  };
  for (const b of bursts) {
    if (b.byte === undefined) {
      other.push({ start: round2(b.start + offsetSec), end: round2(b.end + offsetSec) });
      continue;
    }
    if (!pending.length) pendingStart = b.start;
    pending.push(b.byte);
    // complete when the bytes form whole UTF-8 characters
    if (utf8Complete(pending)) flush(b.end);
  }
  if (pending.length) flush(bursts[bursts.length - 1]!.end);
  return { text: chars.map((c) => c.char).join(''), chars, other };
}

function utf8Complete(bytes: number[]): boolean {
  const first = bytes[0]!;
  const need = first < 0x80 ? 1 : first >> 5 === 6 ? 2 : first >> 4 === 14 ? 3 : first >> 3 === 30 ? 4 : 1;
  return bytes.length >= need;
}

/** PCM s16le mono → the text its tones carry. */
export function tonesToText(pcm: Uint8Array, sampleRate: number): string {
  return transcribeTones(pcm, sampleRate).text;
}

type RateOrFormat = number | { sampleRate: number; channels?: number };
const rateOf = (f: RateOrFormat) => (typeof f === 'number' ? f : f.sampleRate);

/** Same as textToTones, taking a rate or a (mono) PcmFormat. */
export function encodeTones(text: string, format: RateOrFormat, opts: ToneOptions = {}): Buffer {
  return textToTones(text, rateOf(format), opts);
}

/** Same as tonesToText, taking a rate or a (mono) PcmFormat. */
export function decodeTones(pcm: Uint8Array, format: RateOrFormat): string {
  return tonesToText(pcm, rateOf(format));
}
