// An echo path that changed under a converged canceller (the device's latency jumped: a route change, an underrun
// that grew its queue, a restart in a pause), told from speexdsp's own linear filter block by block, as WebRTC
// AEC3's suppressor reacts to an echo-path change: the output is held down while the change is unresolved, apart
// from the start-up hold. EchoPath finds the new delay and moves the reference by it, keeping the filter.

/** one block through speexdsp's linear filter (mean squares): what its echo estimate (mic − linear) explains */
export interface BlockLevels {
  micE: number;
  linearE: number;
  /** the mean of mic·linear */
  crossE: number;
}

/** -55 dBFS (mean square of s16 samples): under it the playback is silence and its echo below any VAD */
export const QUIET = 3400;
/** an echo estimate under -60 dBFS says too little to judge the filter by */
const MIN_ESTIMATE = 1074;
/** settled: the linear filter took 15 dB off the echo over 0.25 s of it */
const SETTLE_RATIO = 10 ** 1.5;
const SETTLE_S = 0.25;
/** the room's noise: the quietest block of the microphone over this long */
const NOISE_S = 2;
/** a change not resolved in this long is given up (the canceller settles again, the estimator's way) */
const GIVE_UP_S = 1.5;

export type PathEvent = 'alarm' | 'resolved' | 'given up';

export class PathChangeWatch {
  /** the linear filter has converged: a change can be told from it */
  settled = false;
  /** a change is unresolved: the output held down */
  suppressing = false;
  /** the echo's level against the shifted reference's (mean squares), measured when it settled */
  private echoGain: number | undefined;
  private readonly raw: number[] = [];
  private readonly shifted: number[] = [];
  /** the microphone's blocks over the last NOISE_S: their quietest is the room's noise */
  private readonly mics: number[] = [];
  private micE = 0;
  private linearE = 0;
  private refE = 0;
  private span = 0;
  private since = 0;
  private readonly gain: number;

  constructor(
    private readonly rate: number,
    /** how long an echo lasts after its sound: the filter's length */
    private readonly tailSamples: number,
    suppressDb = -30,
  ) {
    this.gain = 10 ** (suppressDb / 20);
  }

  /**
   * One block through the linear filter, with the mean squares of the playback over it as played (`raw`) and as
   * given to the filter (`shifted`, moved by the bulk delay).
   */
  block(l: BlockLevels, raw: number, shifted: number, n: number): PathEvent | undefined {
    const keep = Math.ceil(this.tailSamples / n) + 1;
    this.raw.push(raw);
    this.shifted.push(shifted);
    if (this.raw.length > keep) this.raw.shift();
    if (this.shifted.length > keep) this.shifted.shift();
    this.mics.push(l.micE);
    if (this.mics.length * n > this.rate * NOISE_S) this.mics.shift();
    const rawMax = Math.max(...this.raw);
    const shiftedMax = Math.max(...this.shifted);
    // the filter's echo estimate (mic − linear) and how much of it the microphone holds (⟨mic, estimate⟩)
    const estimateE = l.micE - 2 * l.crossE + l.linearE;
    const found = l.micE - l.crossE;
    if (!this.settled) {
      if (shiftedMax >= QUIET) {
        this.micE += l.micE;
        this.linearE += l.linearE;
        this.refE += shifted;
        this.span += n;
      }
      if (this.span >= this.rate * SETTLE_S) {
        if (this.micE >= this.linearE * SETTLE_RATIO && this.refE > 0) {
          this.settled = true;
          this.echoGain = this.micE / this.refE;
        }
        this.micE = this.linearE = this.refE = this.span = 0;
      }
      return undefined;
    }
    const gain = this.echoGain!;
    if (!this.suppressing) {
      // a converged filter predicting an echo that is not where it predicts it (the echo moved later, or stopped)
      // (and loud: within 15 dB of the loudest echo the playback over the filter's span can make; a quiet estimate
      // in a gap of the speech, of sounds the filter has not learnt, missed the microphone as often)
      const loud = Math.max(l.micE / 4, MIN_ESTIMATE, (gain * shiftedMax) / 30);
      const misplaced = estimateE >= loud && found < 0.3 * estimateE;
      // an echo of the playback come before the reference moved by the delay could make it (the echo moved
      // earlier: a restart with less latency): as loud as an echo, not louder (the near end), where the reference
      // as moved has been quiet over the filter's span (nothing predicted: what the filter takes off then is the
      // DC notch's, up to 0.2 of the microphone at an onset), 10 dB over the room's noise (an echo that is due
      // after the reference as moved has not come yet: the noise alone, at a quiet echo over 25 dB below the bound)
      const early =
        shiftedMax < QUIET &&
        l.micE >= 10 * Math.min(...this.mics) &&
        rawMax >= QUIET &&
        l.micE >= (gain * rawMax) / 300 &&
        l.micE <= 4 * gain * rawMax;
      if (!misplaced && !early) return undefined;
      this.suppressing = true;
      this.since = 0;
      return 'alarm';
    }
    this.since += n;
    const cancelled =
      estimateE >= MIN_ESTIMATE && l.micE >= 10 * l.linearE && found >= 0.7 * estimateE && l.micE >= MIN_ESTIMATE;
    const over = rawMax < QUIET && shiftedMax < QUIET;
    if (cancelled || over) {
      this.suppressing = false;
      return 'resolved';
    }
    if (this.since >= this.rate * GIVE_UP_S) {
      this.forget();
      return 'given up';
    }
    return undefined;
  }

  /** the change was not one (the echo's delay is the same): the output let through */
  lift(): void {
    this.suppressing = false;
  }

  /** the canceller was replaced (another delay tried, the drift corrected): settled again before it is watched */
  forget(): void {
    this.settled = false;
    this.suppressing = false;
    this.micE = this.linearE = this.refE = this.span = 0;
  }

  /** `out` held down while a change is unresolved, unless `mic` is louder than any echo could be (the near end) */
  apply(mic: Int16Array, out: Int16Array): void {
    if (!this.suppressing) return;
    let e = 0;
    for (let i = 0; i < mic.length; i++) e += mic[i]! * mic[i]!;
    if (e / (mic.length || 1) > 4 * this.echoGain! * Math.max(...this.raw)) return;
    for (let i = 0; i < out.length; i++) out[i] = Math.round(out[i]! * this.gain);
  }
}
