// The clock drift between the speaker and the microphone, read from the echo's own delay track: within a run of
// playback written back to back (a segment of ReferenceTimeline), the reference follows the playback's samples, so
// the echo's delay after it changes only by the drift between the two clocks (the device plays n·(1 + drift) samples
// while n are captured). The delay estimator's confident estimates, less the correction already applied (the
// timeline's offset), are fitted by one line per segment with a common slope (a pooled least-squares fit: each
// segment keeps its own intercept, as each starts at its own delay); the slope is −drift, given with its standard
// error once the fit spans enough time (DriftEstimator.estimate()).

/** estimates this early in a segment may still hold the one before (the delay estimator's running sum) */
const SKIP_FIRST = 4;
/** an estimate further than this from the segment's previous one is another path (a reflection), not drift */
const JUMP_MS = 2;
/** the fit is given once its times spread this much (Σ (t − t̄)², s²: ~3 s of playback in one run) */
const MIN_SPREAD = 8;
/** the segments kept (older ones fall out: a drift changes slowly, with the devices' temperature) */
const SEGMENTS = 16;

interface Segment {
  id: number;
  seen: number;
  /** the first time, subtracted from the others (s) */
  t0: number;
  last: number;
  n: number;
  st: number;
  sy: number;
  stt: number;
  sty: number;
  syy: number;
}

export class DriftEstimator {
  private readonly segments: Segment[] = [];

  /**
   * One confident delay estimate: `delayMs` after the reference, taken at `timeS` (capture clock) within
   * `segment`, while the played clock was `offsetMs` ahead of the captured one (the correction applied so far).
   */
  add(segment: number, timeS: number, delayMs: number, offsetMs: number): void {
    const y = delayMs - offsetMs;
    let s = this.segments.at(-1);
    if (!s || s.id !== segment) {
      s = { id: segment, seen: 0, t0: timeS, last: y, n: 0, st: 0, sy: 0, stt: 0, sty: 0, syy: 0 };
      this.segments.push(s);
      if (this.segments.length > SEGMENTS) this.segments.shift();
    }
    if (++s.seen <= SKIP_FIRST || Math.abs(y - s.last) > JUMP_MS) {
      s.last = y;
      return;
    }
    s.last = y;
    const t = timeS - s.t0;
    s.n++;
    s.st += t;
    s.sy += y;
    s.stt += t * t;
    s.sty += t * y;
    s.syy += y * y;
  }

  /** the playback's clock against the capture's, parts per million (+: the playback is faster), and its error */
  estimate(): { ppm: number; errorPpm: number } | undefined {
    let sxx = 0;
    let sxy = 0;
    let syy = 0;
    let points = 0;
    let groups = 0;
    for (const s of this.segments) {
      if (s.n < 2) continue;
      sxx += s.stt - (s.st * s.st) / s.n;
      sxy += s.sty - (s.st * s.sy) / s.n;
      syy += s.syy - (s.sy * s.sy) / s.n;
      points += s.n;
      groups++;
    }
    if (sxx < MIN_SPREAD || points - groups < 3) return undefined;
    const slope = sxy / sxx; // ms of delay per s: −drift
    const residual = Math.max(0, syy - slope * sxy) / (points - groups - 1);
    return { ppm: -slope * 1000, errorPpm: Math.sqrt(residual / sxx) * 1000 };
  }
}
