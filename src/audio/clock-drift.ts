// The clock drift between the speaker and the microphone, read from the echo's own delay track: within a run of
// playback written back to back (a segment of ReferenceTimeline), the reference follows the playback's samples, so
// the echo's delay after it changes only by the drift between the two clocks (the device plays n·(1 + drift) samples
// while n are captured). The echo's delay measured at the full rate around the bulk delay (FineDelay, one
// independent estimate per block; EchoPath feeds these since issue 43's fourth round, the bulk estimator's fading
// ones before), less the correction already applied (the timeline's offset), are fitted by one line per segment with
// a common slope (a pooled least-squares fit: each segment keeps its own intercept, as each starts at its own delay,
// and so does the track after the delay moved);
// the slope is −drift, given with its standard error once the fit spans enough time (DriftEstimator.estimate()). The
// least squares run over the estimates near a first robust fit (Theil-Sen): a few blocks on a reflection's peak
// no longer pull the slope.

import { FADE, Fft, crossSpectrum } from './delay-estimator.js';

/** estimates this early in a segment may still hold the one before (the delay estimator's running sum) */
const SKIP_FIRST = 4;
/** an estimate further than this from the segment's previous one is another path (a reflection), not drift */
const JUMP_MS = 2;
/** the fit is given once its times spread this much (Σ (t − t̄)², s²: ~3 s of playback in one run) */
const MIN_SPREAD = 8;
/** the segments kept (older ones fall out: a drift changes slowly, with the devices' temperature) */
const SEGMENTS = 16;
/** the estimates kept per segment (~1 min of playback at one every 0.28 s) */
const POINTS = 200;
/**
 * an estimate further from the first fit than this many robust deviations (and OUTLIER_MS) is left out of the second:
 * the delay estimator's peak moved to a reflection ~1.2 ms off for a few blocks, under its 2 ms jump rule, which put
 * the drift 10-30 ppm off for the first ~20 s (bench/echo.mjs, +208 and −208 ppm)
 */
const OUTLIER_DEVIATIONS = 4;
const OUTLIER_MS = 0.1;
/** the robust first fit takes the slopes between estimates at least this far apart (s) */
const MIN_PAIR_S = 1;
/**
 * the delay estimator's running sum keeps FADE of the one before at each estimate: neighbours share most of their
 * data, so the residuals' error counts n·(1 − FADE)/(1 + FADE) independent estimates, not n (taken as n, the error
 * said 4 ppm where the slope was 25 ppm off, and such a drift applied early cost false barge-ins over 20 answers)
 */
const SHARED = Math.sqrt((1 + FADE) / (1 - FADE));

interface Segment {
  id: number;
  seen: number;
  /** the first time, subtracted from the others (s) */
  t0: number;
  last: number;
  /** when `last` was taken (s) */
  lastT: number;
  /** an estimate more than JUMP_MS from the last one, waiting for the next to say whether the delay moved */
  jumped?: number;
  /** times (s since t0) and delays less the correction (ms) */
  t: number[];
  y: number[];
}

interface Fit {
  slope: number;
  /** each segment's intercept, by index */
  sxx: number;
  residual: number;
  points: number;
  groups: number;
}

export interface DriftEstimatorOptions {
  /** estimates left out at the start of each segment (default SKIP_FIRST: a running sum's first ones) */
  skipFirst?: number;
  /** the error's factor for estimates that share data (default SHARED; 1: independent estimates) */
  shared?: number;
  /** the fit is given once its times spread this much, s² (default MIN_SPREAD) */
  minSpread?: number;
  /**
   * an estimate further than jumpMs + jumpPerS·(seconds since the last one) from the last one is another path or
   * the delay moved, not drift (default JUMP_MS, 0)
   */
  jumpMs?: number;
  jumpPerS?: number;
}

export class DriftEstimator {
  private readonly segments: Segment[] = [];
  private readonly skipFirst: number;
  private readonly shared: number;
  private readonly minSpread: number;
  private readonly jumpMs: number;
  private readonly jumpPerS: number;

  constructor(o: DriftEstimatorOptions = {}) {
    this.jumpMs = o.jumpMs ?? JUMP_MS;
    this.jumpPerS = o.jumpPerS ?? 0;
    this.skipFirst = o.skipFirst ?? SKIP_FIRST;
    this.shared = o.shared ?? SHARED;
    this.minSpread = o.minSpread ?? MIN_SPREAD;
  }

  /**
   * One confident delay estimate: `delayMs` after the reference, taken at `timeS` (capture clock) within
   * `segment`, while the played clock was `offsetMs` ahead of the captured one (the correction applied so far).
   */
  add(segment: number, timeS: number, delayMs: number, offsetMs: number): void {
    const y = delayMs - offsetMs;
    let s = this.segments.at(-1);
    if (!s || s.id !== segment) s = this.line(segment, timeS, y);
    if (++s.seen <= this.skipFirst) {
      s.last = y;
      s.lastT = timeS;
      return;
    }
    // (a drift moves the delay too, by at most jumpPerS ms a second)
    const jump = this.jumpMs + this.jumpPerS * Math.max(0, timeS - s.lastT);
    if (Math.abs(y - s.last) > jump) {
      // one estimate off is a reflection's peak, left out; two that agree are the delay moved (the device's latency
      // changed): a line of its own, as a new segment (one line across the step read it as drift)
      if (s.jumped !== undefined && Math.abs(y - s.jumped) <= this.jumpMs) this.line(segment, timeS, y).seen = 1;
      else s.jumped = y;
      return;
    }
    s.jumped = undefined;
    s.last = y;
    s.lastT = timeS;
    s.t.push(timeS - s.t0);
    s.y.push(y);
    if (s.t.length > POINTS) {
      s.t.shift();
      s.y.shift();
    }
  }

  /** a new line of the fit, from `timeS` on */
  private line(segment: number, timeS: number, y: number): Segment {
    const s: Segment = { id: segment, seen: 0, t0: timeS, last: y, lastT: timeS, t: [], y: [] };
    this.segments.push(s);
    if (this.segments.length > SEGMENTS) this.segments.shift();
    return s;
  }

  /** one line per segment with a common slope, over the points `keep` says yes to */
  private fit(keep: (seg: number, i: number) => boolean): Fit | undefined {
    let sxx = 0;
    let sxy = 0;
    let syy = 0;
    let points = 0;
    let groups = 0;
    const means: [number, number][] = [];
    for (const [k, s] of this.segments.entries()) {
      let n = 0;
      let st = 0;
      let sy = 0;
      for (let i = 0; i < s.t.length; i++) {
        if (!keep(k, i)) continue;
        n++;
        st += s.t[i]!;
        sy += s.y[i]!;
      }
      means.push(n ? [st / n, sy / n] : [0, 0]);
      if (n < 2) continue;
      const [mt, my] = means[k]!;
      for (let i = 0; i < s.t.length; i++) {
        if (!keep(k, i)) continue;
        const dt = s.t[i]! - mt;
        const dy = s.y[i]! - my;
        sxx += dt * dt;
        sxy += dt * dy;
        syy += dy * dy;
      }
      points += n;
      groups++;
    }
    if (sxx <= 0) return undefined;
    const slope = sxy / sxx;
    return { slope, sxx, residual: Math.max(0, syy - slope * sxy), points, groups };
  }

  /**
   * A first fit that a few estimates far off cannot pull: the median of the slopes between the estimates of a
   * segment at least MIN_PAIR_S apart (Theil-Sen), each segment's intercept the median of its residuals.
   */
  private robustFit(): { slope: number; intercepts: number[] } | undefined {
    const slopes: number[] = [];
    for (const s of this.segments)
      for (let i = 0; i < s.t.length; i++)
        for (let j = i + 1; j < s.t.length; j++)
          if (s.t[j]! - s.t[i]! >= MIN_PAIR_S) slopes.push((s.y[j]! - s.y[i]!) / (s.t[j]! - s.t[i]!));
    if (!slopes.length) return undefined;
    const slope = median(slopes);
    const intercepts = this.segments.map((s) => (s.t.length ? median(s.y.map((y, i) => y - slope * s.t[i]!)) : 0));
    return { slope, intercepts };
  }

  /** the playback's clock against the capture's, parts per million (+: the playback is faster), and its error */
  estimate(): { ppm: number; errorPpm: number } | undefined {
    const all = this.fit(() => true);
    const first = all && all.sxx >= this.minSpread ? this.robustFit() : undefined;
    if (!first) return undefined;
    // the estimates far off the robust fit (a reflection's peak for a few blocks) are left out of the least squares
    const off = (k: number, i: number) => {
      const s = this.segments[k]!;
      return Math.abs(s.y[i]! - first.intercepts[k]! - first.slope * s.t[i]!);
    };
    const deviations: number[] = [];
    for (const [k, s] of this.segments.entries()) for (let i = 0; i < s.t.length; i++) deviations.push(off(k, i));
    const bound = Math.max(OUTLIER_MS, OUTLIER_DEVIATIONS * 1.4826 * median(deviations));
    const f = this.fit((k, i) => off(k, i) <= bound);
    if (!f || f.sxx < this.minSpread || f.points - f.groups < 3) return undefined;
    const residual = f.residual / (f.points - f.groups - 1);
    return { ppm: -f.slope * 1000, errorPpm: Math.sqrt(residual / f.sxx) * 1000 * this.shared };
  }
}

function median(x: number[]): number {
  const sorted = [...x].sort((a, b) => a - b);
  const m = sorted.length >> 1;
  return sorted.length % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2;
}

/** PHAT-β of the fine correlation (as the delay estimator's) */
const FINE_BETA = 0.8;

/** One block's delay at the full rate: where the echo's direct path (the correlation's peak) is, and how sure. */
export interface FineDelayEstimate {
  delayMs: number;
  /** the peak over the RMS of the correlation at the other lags */
  confidence: number;
}

/**
 * The echo's delay measured at the full sample rate around a bulk delay already known, block by block with no
 * running sum: independent estimates a few microseconds apart, whose track gives the drift in 2-3 s of playback
 * (the bulk estimator's, at ~4 kHz through a fading sum, had to be fitted over 5-9 s: the sum's start bends its
 * slope, and its peak hops between a reflection and the direct path). The microphone's block against the reference
 * `window` samples either side of the bulk delay: GCC-PHAT-β over 150 Hz-5 kHz by one complex FFT, the peak refined
 * by a parabola (at 24 kHz, under 0.005 ms off).
 */
export class FineDelay {
  private readonly fft: Fft;
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  private readonly band: [number, number];

  constructor(
    private readonly rate: number,
    /** the microphone's block, samples */
    readonly block: number,
    /** lags looked at either side of the bulk delay, samples */
    readonly window: number,
  ) {
    let size = 2;
    while (size < block + 2 * window) size <<= 1;
    this.fft = new Fft(size);
    this.re = new Float64Array(size);
    this.im = new Float64Array(size);
    const bin = rate / size;
    this.band = [Math.ceil(150 / bin), Math.min(size / 2 - 1, Math.floor(5000 / bin))];
  }

  /**
   * `mic` (block samples) against `ref` (block + 2·window samples: the reference from `bulk + window` samples
   * before the microphone's first to `bulk − window` before its last), the delay after the reference.
   */
  measure(mic: Int16Array, ref: Int16Array, bulk: number): FineDelayEstimate {
    return this.peaks(mic, ref, bulk, 1)[0]!;
  }

  /**
   * The `count` strongest peaks of the correlation (`measure`'s, then the next ones at least 1 ms from those
   * before them), strongest first, each with its confidence against the RMS at the lags away from the strongest.
   */
  peaks(mic: Int16Array, ref: Int16Array, bulk: number, count: number): FineDelayEstimate[] {
    const { re, im, block, window } = this;
    const n = re.length;
    re.fill(0);
    im.fill(0);
    for (let i = 0; i < ref.length; i++) re[i] = ref[i]! / 32768;
    for (let i = 0; i < block; i++) im[i] = mic[i]! / 32768;
    this.fft.transform(re, im);
    // the cross-spectrum, weighted (PHAT-β), both halves: the correlation comes back real
    const xr = new Float64Array(n);
    const xi = new Float64Array(n);
    const [lo, hi] = this.band;
    crossSpectrum(re, im, lo, hi, xr, xi);
    for (let k = lo; k <= hi; k++) {
      const cr = xr[k]!;
      const ci = xi[k]!;
      const w = 1 / ((cr * cr + ci * ci) ** (FINE_BETA / 2) + 1e-30);
      xr[k] = cr * w;
      xi[k] = ci * w;
      xr[n - k] = cr * w;
      xi[n - k] = -ci * w;
    }
    this.fft.transform(xr, xi, true);
    // c[j] = Σ ref[m + j]·mic[m]: the echo `bulk + window − j` samples after the reference
    let best = 0;
    for (let j = 1; j <= 2 * window; j++) if (Math.abs(xr[j]!) > Math.abs(xr[best]!)) best = j;
    let s = 0;
    let others = 0;
    for (let j = 0; j <= 2 * window; j++) {
      if (Math.abs(j - best) <= 2) continue;
      s += xr[j]! ** 2;
      others++;
    }
    const rms = Math.sqrt(s / Math.max(1, others));
    const found = [best];
    const apart = this.rate / 1000;
    while (found.length < count) {
      let next = -1;
      for (let j = 1; j < 2 * window; j++) {
        const v = Math.abs(xr[j]!);
        if (v < Math.abs(xr[j - 1]!) || v < Math.abs(xr[j + 1]!) || found.some((f) => Math.abs(f - j) < apart))
          continue;
        if (next < 0 || v > Math.abs(xr[next]!)) next = j;
      }
      if (next < 0) break;
      found.push(next);
    }
    return found.map((j) => {
      let offset = 0;
      if (j > 0 && j < 2 * window) {
        const a = xr[j - 1]!;
        const b = xr[j + 1]!;
        const curve = a - 2 * xr[j]! + b;
        if (curve !== 0) offset = Math.max(-0.5, Math.min(0.5, (a - b) / (2 * curve)));
      }
      return { delayMs: ((bulk + window - j - offset) * 1000) / this.rate, confidence: Math.abs(xr[j]!) / rms };
    });
  }
}
