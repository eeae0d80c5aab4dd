// The bulk delay between the reference (what played, on the capture's clock) and the microphone, found before the
// adaptive filter as WebRTC AEC3 does: speexdsp's MDF spends its partitions on the empty span before the echo's
// direct path and converges slowly when that span is long (bench/echo.mjs: 21 dB ERLE with 180 ms before the echo,
// 33 dB with the reference moved 170 ms later). Both signals are low-passed and decimated to ~4 kHz; every 0.256 s
// in which the reference played, the cross-spectrum of 0.512 s of microphone against the 1.024 s of reference that
// can have caused it (lags 0-512 ms) is added to a running sum (older blocks fading), whose phase alone (GCC-PHAT)
// gives a correlation with a sharp peak at the echo's delay whatever the voice's spectrum. An estimate counts when
// that peak stands far above the correlation elsewhere (and not at either end of the lags: the flank of a peak
// outside them); a delay is committed once three estimates in a row agree within 1 ms, changed only when three agree
// on one more than 4 ms away (a device restarted), and dropped when the playback goes on for ~1.5 s without an
// estimate confirming it (headphones plugged in, the room changed). After a 0.5 s pause in the playback the sum
// starts afresh: the device may come back with another latency. The user of the estimate (EchoPath) may refuse a
// change that did not help (reject()): it is then not proposed again for ~4 s of playback.

/** a block's estimate counts when its peak is this many times the RMS of the correlation at the other lags */
const CONFIDENCE = 10;
/** successive confident estimates that must agree (within AGREE_MS) before a delay is committed */
const STREAK = 3;
const AGREE_MS = 1;
/** estimates this close to either end of the lags looked at are not taken */
const EDGE_MS = 2;
/** a committed delay not confirmed over this many blocks of playback (~1.5 s) is dropped */
const EXPIRE_BLOCKS = 6;
/** a change refused (the canceller did no better with it) is not proposed again for this many blocks (~4 s) */
const REFUSED_BLOCKS = 16;
/** a pause in the playback this long starts the sum afresh (the device may come back with another latency) */
const PAUSE_S = 0.5;
/** a committed delay changes only for an agreed one further away than this */
const CHANGE_MS = 4;
/** the running cross-spectrum keeps this much of its past at each new block (~4 blocks, ~1 s of audio, weigh most) */
export const FADE = 0.7;
/** PHAT-β: the cross-spectrum divided by its magnitude to this power (1: phase only; less: a little of the level) */
const BETA = 0.8;
/** a block counts when the reference played over it: mean square above -50 dBFS */
const ACTIVE = 10 ** (-50 / 10);

/** A second-order low-pass section (RBJ), run in place over float samples with its own state. */
class Biquad {
  private readonly b0: number;
  private readonly b1: number;
  private readonly a1: number;
  private readonly a2: number;
  private z1 = 0;
  private z2 = 0;

  constructor(cutoff: number, rate: number, q: number) {
    const w = (2 * Math.PI * cutoff) / rate;
    const alpha = Math.sin(w) / (2 * q);
    const a0 = 1 + alpha;
    this.b0 = (1 - Math.cos(w)) / 2 / a0;
    this.b1 = (1 - Math.cos(w)) / a0;
    this.a1 = (-2 * Math.cos(w)) / a0;
    this.a2 = (1 - alpha) / a0;
  }

  /** transposed direct form II; b2 = b0 for a low-pass */
  step(x: number): number {
    const y = this.b0 * x + this.z1;
    this.z1 = this.b1 * x - this.a1 * y + this.z2;
    this.z2 = this.b0 * x - this.a2 * y;
    return y;
  }
}

/** A 4th-order Butterworth low-pass then every `factor`-th sample, appended to a ring. */
class Decimator {
  private readonly sections: [Biquad, Biquad];
  private phase = 0;

  constructor(
    rate: number,
    private readonly factor: number,
    private readonly ring: Float64Array,
  ) {
    // 0.42 of the decimated rate: under its Nyquist frequency, with the filter's slope before it
    const cutoff = (0.42 * rate) / factor;
    this.sections = [new Biquad(cutoff, rate, 0.5412), new Biquad(cutoff, rate, 1.3066)];
  }

  /** s16 samples in; the decimated ones written at `at` onward in the ring; returns how many */
  push(x: Int16Array, at: number): number {
    const [s1, s2] = this.sections;
    const mask = this.ring.length - 1;
    let n = 0;
    for (let i = 0; i < x.length; i++) {
      const y = s2.step(s1.step(x[i]! / 32768));
      if (++this.phase === this.factor) {
        this.phase = 0;
        this.ring[(at + n++) & mask] = y;
      }
    }
    return n;
  }
}

/** In-place radix-2 complex FFT of one size, its tables computed once. */
export class Fft {
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  private readonly rev: Uint32Array;

  constructor(readonly size: number) {
    if (size < 2 || (size & (size - 1)) !== 0) throw new Error(`FFT size ${size} is not a power of two`);
    this.cos = Float64Array.from({ length: size / 2 }, (_, k) => Math.cos((2 * Math.PI * k) / size));
    this.sin = Float64Array.from({ length: size / 2 }, (_, k) => -Math.sin((2 * Math.PI * k) / size));
    this.rev = new Uint32Array(size);
    const bits = Math.log2(size);
    for (let i = 0; i < size; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      this.rev[i] = r;
    }
  }

  /** forward (e^-i), or inverse without the 1/size */
  transform(re: Float64Array, im: Float64Array, inverse = false): void {
    const n = this.size;
    for (let i = 0; i < n; i++) {
      const j = this.rev[i]!;
      if (i < j) {
        const r = re[i]!;
        re[i] = re[j]!;
        re[j] = r;
        const m = im[i]!;
        im[i] = im[j]!;
        im[j] = m;
      }
    }
    const sign = inverse ? -1 : 1;
    for (let len = 2; len <= n; len <<= 1) {
      const half = len >> 1;
      const step = n / len;
      for (let i = 0; i < n; i += len) {
        for (let k = 0; k < half; k++) {
          const wr = this.cos[k * step]!;
          const wi = sign * this.sin[k * step]!;
          const a = i + k;
          const b = a + half;
          const tr = re[b]! * wr - im[b]! * wi;
          const ti = re[b]! * wi + im[b]! * wr;
          re[b] = re[a]! - tr;
          im[b] = im[a]! - ti;
          re[a] = re[a]! + tr;
          im[a] = im[a]! + ti;
        }
      }
    }
  }
}

/**
 * Two real signals transformed as one complex FFT Z (the reference + i·the microphone): their cross-spectrum
 * R·conj(M) for bins from..to into outRe/outIm, where R = (Z[k] + conj Z[n−k]) / 2 and M = (Z[k] − conj Z[n−k]) / 2i.
 */
export function crossSpectrum(
  re: Float64Array,
  im: Float64Array,
  from: number,
  to: number,
  outRe: Float64Array,
  outIm: Float64Array,
): void {
  const n = re.length;
  for (let k = from; k <= to; k++) {
    const ar = re[k]!;
    const ai = im[k]!;
    const br = re[(n - k) & (n - 1)]!;
    const bi = -im[(n - k) & (n - 1)]!;
    const rr = (ar + br) / 2;
    const ri = (ai + bi) / 2;
    const mr = (ai - bi) / 2;
    const mi = -(ar - br) / 2;
    outRe[k] = rr * mr + ri * mi;
    outIm[k] = ri * mr - rr * mi;
  }
}

/** One block's look at the correlation: the lag of its peak and how far it stands out. */
export interface DelayEstimate {
  /** the echo's delay after the reference, ms */
  delayMs: number;
  /** the peak over the RMS of the correlation at the lags away from it */
  confidence: number;
}

export interface DelayEstimatorOptions {
  sampleRate: number;
  /** the longest delay looked for (default 500 ms: device buffers, Bluetooth, the room) */
  maxDelayMs?: number;
}

/** Reference and microphone in, frame by frame; a committed delay out once the estimates agree. */
export class DelayEstimator {
  /** the committed delay (input samples), undefined until estimates agree */
  delaySamples: number | undefined;
  /** the last block's estimate (the bench and tests read it) */
  last: DelayEstimate | undefined;
  private readonly factor: number;
  private readonly rate: number;
  /** the lags looked at (decimated samples), also the microphone block's length; the FFT is twice that */
  private readonly lags: number;
  private readonly fft: Fft;
  private readonly refRing: Float64Array;
  private readonly micRing: Float64Array;
  private readonly refIn: Decimator;
  private readonly micIn: Decimator;
  /** decimated samples written so far, and at the last block */
  private written = 0;
  private blockAt = 0;
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  private readonly sumRe: Float64Array;
  private readonly sumIm: Float64Array;
  /** the last block's cross-spectrum */
  private readonly blockRe: Float64Array;
  private readonly blockIm: Float64Array;
  private readonly band: [number, number];
  /** the weighted cross-spectrum of the last correlation (its band), for the peak's refinement between samples */
  private readonly wRe: Float64Array;
  private readonly wIm: Float64Array;
  private readonly streak: number[] = [];
  /** the committed delay before the last change (restored if that change is refused) */
  private previous: number | undefined;
  private refusal: { delayMs: number | undefined; blocks: number } | undefined;
  /** blocks of playback since an estimate last confirmed the committed delay */
  private unconfirmed = 0;
  /** input samples since the reference last played */
  private quiet = 0;

  constructor(private readonly o: DelayEstimatorOptions) {
    this.factor = Math.max(1, Math.round(o.sampleRate / 4000));
    this.rate = o.sampleRate / this.factor;
    let lags = 2;
    while (lags < ((o.maxDelayMs ?? 500) * this.rate) / 1000) lags <<= 1;
    this.lags = lags;
    this.fft = new Fft(lags * 2);
    this.refRing = new Float64Array(lags * 4);
    this.micRing = new Float64Array(lags * 4);
    this.refIn = new Decimator(o.sampleRate, this.factor, this.refRing);
    this.micIn = new Decimator(o.sampleRate, this.factor, this.micRing);
    this.re = new Float64Array(lags * 2);
    this.im = new Float64Array(lags * 2);
    this.sumRe = new Float64Array(lags + 1);
    this.sumIm = new Float64Array(lags + 1);
    this.blockRe = new Float64Array(lags + 1);
    this.blockIm = new Float64Array(lags + 1);
    this.wRe = new Float64Array(lags + 1);
    this.wIm = new Float64Array(lags + 1);
    // 100 Hz to 0.4 of the decimated rate (under the low-pass's cutoff): where speech and the echo are
    const bin = this.rate / (lags * 2);
    this.band = [Math.ceil(100 / bin), Math.floor((0.4 * this.rate) / bin)];
  }

  /** the committed delay in ms, undefined until one is */
  get delayMs(): number | undefined {
    return this.delaySamples === undefined ? undefined : (this.delaySamples * 1000) / this.o.sampleRate;
  }

  /**
   * The reference of the captured samples `mic` (as long, on the same clock). Returns true when the committed delay
   * changed (a first one, or a new one after a restart).
   */
  push(ref: Int16Array, mic: Int16Array): boolean {
    if (ref.length !== mic.length) throw new Error(`delay estimator: ${ref.length} and ${mic.length} samples`);
    this.refIn.push(ref, this.written);
    this.written += this.micIn.push(mic, this.written);
    this.newBurst(ref);
    const hop = this.lags / 2;
    if (this.written < this.lags * 2 || this.written - this.blockAt < hop) return false;
    this.blockAt = this.written;
    if (!this.referencePlayed()) return false;
    this.last = this.estimate();
    if (this.refusal) this.refusal.blocks--;
    return this.decide(this.last);
  }

  /**
   * After a pause in the playback the device may restart with another latency: what was summed before the pause no
   * longer counts, so that the new delay is found in as few blocks as the first one was.
   */
  private newBurst(ref: Int16Array): void {
    let s = 0;
    for (let i = 0; i < ref.length; i++) s += ref[i]! * ref[i]!;
    if (s / ref.length / 32768 ** 2 <= ACTIVE) {
      this.quiet += ref.length;
      return;
    }
    if (this.quiet >= this.o.sampleRate * PAUSE_S) {
      this.sumRe.fill(0);
      this.sumIm.fill(0);
      this.streak.length = 0;
      this.refusal = undefined;
    }
    this.quiet = 0;
  }

  /** the reference played over the last block: over its newest hop, and over the whole of it */
  private referencePlayed(): boolean {
    const mask = this.refRing.length - 1;
    const meanSquare = (n: number) => {
      let s = 0;
      for (let i = this.written - n; i < this.written; i++) s += this.refRing[i & mask]! ** 2;
      return s / n;
    };
    return meanSquare(this.lags / 2) > ACTIVE && meanSquare(this.lags * 2) > ACTIVE;
  }

  /**
   * The newest `lags` microphone samples against the `2·lags` reference samples before their end: c[j] = Σ ref[n +
   * j]·mic[n] peaks at j = lags − delay. The two real blocks go through one complex FFT (ref + i·mic).
   */
  private estimate(): DelayEstimate {
    const { re, im, lags } = this;
    const n = lags * 2;
    const mask = this.refRing.length - 1;
    const from = this.written - n;
    for (let i = 0; i < n; i++) {
      re[i] = this.refRing[(from + i) & mask]!;
      im[i] = i < lags ? this.micRing[(from + lags + i) & mask]! : 0;
    }
    this.fft.transform(re, im);
    // the sum fades and takes this block's cross-spectrum
    crossSpectrum(re, im, 0, lags, this.blockRe, this.blockIm);
    for (let k = 0; k <= lags; k++) {
      this.sumRe[k] = FADE * this.sumRe[k]! + this.blockRe[k]!;
      this.sumIm[k] = FADE * this.sumIm[k]! + this.blockIm[k]!;
    }
    return this.peak(this.correlation());
  }

  /** the faded cross-spectrum, phase-weighted (PHAT-β) within the band, back to lags */
  private correlation(): Float64Array {
    const { re, im, lags } = this;
    const n = lags * 2;
    re.fill(0);
    im.fill(0);
    const [lo, hi] = this.band;
    for (let k = lo; k <= hi; k++) {
      const sr = this.sumRe[k]!;
      const si = this.sumIm[k]!;
      const w = 1 / ((sr * sr + si * si) ** (BETA / 2) + 1e-30);
      re[k] = sr * w;
      im[k] = si * w;
      this.wRe[k] = re[k]!;
      this.wIm[k] = im[k]!;
      re[n - k] = sr * w;
      im[n - k] = -si * w;
    }
    this.fft.transform(re, im, true);
    // c[j] for j in 0..lags, as delay d = lags − j
    return Float64Array.from({ length: lags + 1 }, (_, d) => re[lags - d]!);
  }

  /**
   * The delay: the strongest peak, or an earlier one at least half as strong within 50 ms before it (the direct
   * path, a reflection being the strongest), refined between samples; its confidence against the RMS elsewhere.
   */
  private peak(c: Float64Array): DelayEstimate {
    let best = 0;
    for (let d = 1; d < c.length; d++) if (Math.abs(c[d]!) > Math.abs(c[best]!)) best = d;
    const top = Math.abs(c[best]!);
    const strongest = best;
    const early = Math.max(0, best - Math.round(0.05 * this.rate));
    for (let d = early; d < best; d++) {
      if (
        Math.abs(c[d]!) >= top / 2 &&
        Math.abs(c[d]!) >= Math.abs(c[d + 1]!) &&
        (d === 0 || Math.abs(c[d]!) >= Math.abs(c[d - 1]!))
      ) {
        best = d;
        break;
      }
    }
    const guard = Math.round(0.002 * this.rate);
    let s = 0;
    let count = 0;
    // the rest: all but the peak taken and the strongest (a reflection after it), and what lies between them
    for (let d = 0; d < c.length; d++) {
      if (d >= best - guard && d <= strongest + guard) continue;
      s += c[d]! ** 2;
      count++;
    }
    const at = c[best]!;
    let offset = 0;
    if (best > 0 && best < c.length - 1) {
      const a = c[best - 1]!;
      const b = c[best + 1]!;
      const curve = a - 2 * at + b;
      if (curve !== 0) offset = Math.max(-0.5, Math.min(0.5, (a - b) / (2 * curve)));
    }
    return {
      delayMs: ((best + this.refine(best, offset, Math.sign(at))) * 1000) / this.rate,
      confidence: Math.abs(at) / Math.sqrt(s / count),
    };
  }

  /**
   * The peak at `best` + `offset` (a parabola's guess) moved to where the correlation itself peaks between samples:
   * c(j) = 2 Σ (X cos θ − Y sin θ), θ = 2πkj/n over the band, maximised by Newton's method. The parabola leans
   * towards whole samples (0.25 ms at ~4 kHz), which made the drift read off the delay track wrong by 10-20 ppm.
   */
  private refine(best: number, offset: number, sign: number): number {
    const n = this.lags * 2;
    const [lo, hi] = this.band;
    let j = this.lags - best - offset;
    for (let step = 0; step < 4; step++) {
      let d1 = 0;
      let d2 = 0;
      for (let k = lo; k <= hi; k++) {
        const w = (2 * Math.PI * k) / n;
        const cos = Math.cos(w * j);
        const sin = Math.sin(w * j);
        d1 += w * (-this.wRe[k]! * sin - this.wIm[k]! * cos);
        d2 += w * w * (-this.wRe[k]! * cos + this.wIm[k]! * sin);
      }
      // a maximum of sign·c: sign·c'' < 0; otherwise keep the parabola's guess
      if (sign * d2 >= 0) return offset;
      j -= d1 / d2;
    }
    const refined = this.lags - j - best;
    return Math.abs(refined) <= 1 ? refined : offset;
  }

  /**
   * The delay just committed (or dropped) did not do better: the one before it is back, and the same change is not
   * proposed again for REFUSED_BLOCKS blocks of playback (or until a pause).
   */
  reject(): void {
    this.refusal = { delayMs: this.delayMs, blocks: REFUSED_BLOCKS };
    this.delaySamples = this.previous;
    this.unconfirmed = 0;
  }

  /**
   * The echo moved to `delaySamples` and the reference with it (EchoPath found the change itself): committed, and
   * the sum of the blocks before, at the old delay, forgotten, so that estimates of the new one confirm it.
   */
  moved(delaySamples: number): void {
    this.delaySamples = this.previous = delaySamples;
    this.sumRe.fill(0);
    this.sumIm.fill(0);
    this.streak.length = 0;
    this.unconfirmed = 0;
    this.refusal = undefined;
  }

  /** is a change to `ms` (undefined: to none) one refused lately? */
  private refused(ms: number | undefined): boolean {
    const r = this.refusal;
    if (!r || r.blocks <= 0) return false;
    if (ms === undefined || r.delayMs === undefined) return ms === r.delayMs;
    return Math.abs(ms - r.delayMs) <= CHANGE_MS;
  }

  /** does the estimate count: its peak stands out, and not at either end of the lags looked at */
  confident(e: DelayEstimate): boolean {
    // a peak at either end of the lags looked at may be the flank of one outside them (an echo before its
    // reference, or after 512 ms): not an estimate
    const edge = e.delayMs < EDGE_MS || e.delayMs > (this.lags * 1000) / this.rate - EDGE_MS;
    return e.confidence >= CONFIDENCE && !edge;
  }

  /** a confident estimate joins the streak (an unsure one breaks it); STREAK that agree commit a delay */
  private decide(e: DelayEstimate): boolean {
    const sure = this.confident(e);
    const current = this.delayMs;
    if (current !== undefined) {
      // a committed delay that the estimates stop confirming while the playback goes on is dropped (back to none)
      this.unconfirmed = sure && Math.abs(e.delayMs - current) <= CHANGE_MS ? 0 : this.unconfirmed + 1;
      if (this.unconfirmed >= EXPIRE_BLOCKS && !this.refused(undefined)) {
        this.previous = this.delaySamples;
        this.delaySamples = undefined;
        this.unconfirmed = 0;
        this.streak.length = 0;
        return true;
      }
    }
    if (!sure) {
      this.streak.length = 0;
      return false;
    }
    this.streak.push(e.delayMs);
    if (this.streak.length > STREAK) this.streak.shift();
    if (this.streak.length < STREAK) return false;
    const sorted = [...this.streak].sort((a, b) => a - b);
    if (sorted[STREAK - 1]! - sorted[0]! > 2 * AGREE_MS) return false;
    const ms = sorted[STREAK >> 1]!;
    if (current !== undefined && Math.abs(ms - current) <= CHANGE_MS) return false;
    if (this.refused(ms)) return false;
    this.previous = this.delaySamples;
    this.delaySamples = Math.round((ms * this.o.sampleRate) / 1000);
    this.unconfirmed = 0;
    return true;
  }
}
