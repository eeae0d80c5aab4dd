// The start-up echo suppressor (issue 43): over the first second of the agent's voice the canceller's filter has heard
// too little of it to cancel sounds it has not heard yet (bench/echo.mjs, 'all at once': 20-24 dB on what it was
// trained on, 4-12 dB on what followed, even with the clock drift known), and the start-up hold held the user down for
// that time (1.3 s there). EchoPath runs this instead once a trained canceller has learnt the room. This predicts the
// echo left from the reference instead of from the filter, as WebRTC AEC3 does while its filter has not converged: the
// reference's power spectrum, held over the room's tail, times the room's coupling per frequency (the microphone
// against it, learnt over its first half second) and the share of the echo the linear stage still lets through (the
// output against the microphone). Each frequency of the output loses what that prediction takes of it (a Wiener-like
// gain, twice the prediction, down to -30 dB): the echo is held down where it is, and the near end passes where it is
// louder than the echo predicted (the hold held it all down). The gains are applied by a 64-tap linear-phase filter per
// block, crossfaded from the last block's, so that no block edge clicks; the output is delayed by its 32 samples always
// (1.3 ms at 24 kHz), on or off, so the lag never changes.
import { Fft } from './delay-estimator.js';

/** the filter applying the gains: taps, and the delay it adds (its centre) */
const TAPS = 64;
export const SUPPRESSOR_DELAY = TAPS / 2;
/** the lowest gain (-30 dB, as the hold's) */
const FLOOR = 10 ** (-30 / 20);
/** the prediction taken twice over: the echo's spectrum varies around its mean */
const OVER = 2;
/** the coupling is learnt over this much of the suppressor's first audio (the agent alone, most likely) */
const LEARN_S = 0.5;
/** the room's tail in the prediction: power decaying by 60 dB over this (the filter covers 500 ms) */
const TAIL_RT60_S = 0.6;
/** the linear stage's share is never taken as less than this (-13 dB): its ERLE on new sounds is not known */
const MIN_LEAK = 0.05;

/** A block's power per bin (Hann window, zero-padded to the FFT's size). */
function power(fft: Fft, x: Int16Array): Float64Array {
  const { size } = fft;
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  const n = Math.min(x.length, size);
  for (let i = 0; i < n; i++) re[i] = x[x.length - n + i]! * (0.5 - 0.5 * Math.cos((2 * Math.PI * (i + 0.5)) / n));
  fft.transform(re, im);
  const p = new Float64Array(size / 2 + 1);
  for (let k = 0; k < p.length; k++) p[k] = re[k]! * re[k]! + im[k]! * im[k]!;
  return p;
}

export class StartupSuppressor {
  private readonly fft: Fft;
  private readonly firFft = new Fft(TAPS);
  /** the reference's power, held over the tail (per bin) */
  private tail: Float64Array;
  /** the coupling from the reference's power to the microphone's (per bin; 0: not learnt) */
  private coupling: Float64Array;
  private learnt = 0;
  private outSum = 0;
  private micSum = 0;
  /** the filter of the last block (IDENTITY while off), and the input's last TAPS - 1 samples */
  private fir: Float64Array = IDENTITY;
  private readonly past = new Float64Array(TAPS - 1);
  /** samples suppressed so far */
  suppressedSamples = 0;

  constructor(
    private readonly rate: number,
    /** the block the spectra are taken over (EchoPath's frame): their FFT's size is the power of two above it */
    block: number,
  ) {
    let size = 2;
    while (size < block) size <<= 1;
    this.fft = new Fft(size);
    this.tail = new Float64Array(size / 2 + 1);
    this.coupling = new Float64Array(size / 2 + 1);
  }

  /**
   * `out` (the canceller's output, changed in place) delayed by SUPPRESSOR_DELAY; with `input` (the microphone `out`
   * was made from, and the playback lined up with it at the echo's delay), suppressed by what the echo of that
   * playback is predicted to leave in it. Without, a delay and nothing else (most of a session: no filter is run).
   */
  apply(out: Int16Array, input?: { mic: Int16Array; ref: Int16Array }): void {
    const next = input ? this.filterFor(out, input.mic, input.ref) : IDENTITY;
    if (input) this.suppressedSamples += out.length;
    const n = out.length;
    const x = new Float64Array(TAPS - 1 + n);
    x.set(this.past);
    for (let i = 0; i < n; i++) x[TAPS - 1 + i] = out[i]!;
    this.past.set(x.subarray(x.length - (TAPS - 1)));
    const fir = this.fir;
    this.fir = next;
    if (next === IDENTITY && fir === IDENTITY) {
      for (let i = 0; i < n; i++) out[i] = x[TAPS - 1 - SUPPRESSOR_DELAY + i]!;
      return;
    }
    for (let i = 0; i < n; i++) {
      // (crossfaded from the last block's filter: no block edge clicks)
      const v = convolveAt(x, i, next) * ((i + 1) / n) + convolveAt(x, i, fir) * (1 - (i + 1) / n);
      out[i] = Math.max(-32768, Math.min(32767, Math.round(v)));
    }
  }

  /** the gains for this block, as a linear-phase filter */
  private filterFor(out: Int16Array, mic: Int16Array, ref: Int16Array): Float64Array {
    const o = power(this.fft, out);
    const m = power(this.fft, mic);
    const r = power(this.fft, ref);
    const decay = 10 ** (-(60 * out.length) / (this.rate * TAIL_RT60_S) / 10);
    let refSum = 0;
    for (let k = 0; k < r.length; k++) {
      this.tail[k] = Math.max(r[k]!, decay * this.tail[k]!);
      refSum += this.tail[k]!;
    }
    let outSum = 0;
    let micSum = 0;
    for (let k = 0; k < o.length; k++) {
      outSum += o[k]!;
      micSum += m[k]!;
    }
    if (refSum > 0) {
      // the linear stage's share of the echo it leaves, over the last few blocks
      this.outSum = 0.8 * this.outSum + outSum;
      this.micSum = 0.8 * this.micSum + micSum;
      if (this.learnt < this.rate * LEARN_S) {
        this.learnt += out.length;
        for (let k = 0; k < r.length; k++) {
          // (bins the playback hardly reaches say nothing of the room)
          if (this.tail[k]! < (refSum / r.length) * 1e-3) continue;
          this.coupling[k] = Math.max(this.coupling[k]!, m[k]! / this.tail[k]!);
        }
      }
    }
    const learnt = [...this.coupling].filter((c) => c > 0).sort((a, b) => a - b);
    const median = learnt.length ? learnt[learnt.length >> 1]! : 0;
    const leak = Math.min(1, Math.max(MIN_LEAK, this.micSum > 0 ? this.outSum / this.micSum : 1));
    const gains = new Float64Array(o.length);
    for (let k = 0; k < o.length; k++) {
      const echo = OVER * Math.max(this.coupling[k]!, median) * this.tail[k]! * leak;
      gains[k] = o[k]! > 0 ? Math.max(FLOOR, Math.min(1, 1 - echo / o[k]!)) : FLOOR;
    }
    return this.design(gains);
  }

  /** a TAPS-tap linear-phase filter with (about) these gains per bin of the block's spectrum */
  private design(gains: Float64Array): Float64Array {
    const half = TAPS / 2;
    const per = (gains.length - 1) / half;
    const re = new Float64Array(TAPS);
    const im = new Float64Array(TAPS);
    for (let j = 0; j <= half; j++) {
      // the mean gain over the bins this one stands for
      const from = Math.max(0, Math.round((j - 0.5) * per));
      const to = Math.min(gains.length - 1, Math.round((j + 0.5) * per));
      let g = 0;
      for (let k = from; k <= to; k++) g += gains[k]!;
      g /= to - from + 1;
      // zero phase turned into a delay of `half` samples: the sign of every other bin flips
      re[j] = j % 2 ? -g : g;
      if (j > 0 && j < half) re[TAPS - j] = re[j]!;
    }
    this.firFft.transform(re, im, true);
    const h = new Float64Array(TAPS);
    for (let i = 0; i < TAPS; i++) h[i] = (re[i]! / TAPS) * (0.54 - 0.46 * Math.cos((2 * Math.PI * i) / TAPS));
    return h;
  }
}

/** the filter while off: the delay alone (never changed) */
const IDENTITY = (() => {
  const h = new Float64Array(TAPS);
  h[SUPPRESSOR_DELAY] = 1;
  return h;
})();

/** (x * h) at output i: x holds TAPS - 1 samples of the past before the block */
function convolveAt(x: Float64Array, i: number, h: Float64Array): number {
  let s = 0;
  for (let m = 0; m < TAPS; m++) s += h[m]! * x[i + TAPS - 1 - m]!;
  return s;
}
