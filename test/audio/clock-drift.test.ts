// Clock drift between the speaker and the microphone (issue 43): DriftEstimator reads it from the echo's delay
// track, speexdsp's resampler (DriftResampler) stretches the reference by it, and EchoPath puts the two together,
// so that a speaker 208 ppm faster than the microphone (48,010 against 48,000 Hz) is cancelled as if on one clock.
import { describe, expect, it } from 'vitest';
import { DriftEstimator } from '../../src/audio/clock-drift.js';
import { DriftResampler, EchoPath } from '../../src/audio/echo-canceller.js';
import { AGENT_TEXT, RATE, drifted, hear, s16, seeded, speech } from './speech-room.js';

describe('DriftEstimator', () => {
  /** estimates every 0.28 s over runs of `seconds`, each run at its own delay, the delay moving by −ppm */
  function feed(d: DriftEstimator, ppm: number, runs: number, seconds: number, offsetPpm = 0) {
    const rand = seeded(4);
    let t = 0;
    for (let run = 0; run < runs; run++) {
      const start = 40 + run * 17; // each run of playback starts at another delay (the device restarted)
      for (let s = 0; s < seconds; s += 0.28, t += 0.28) {
        // the correction already applied moves the reference, and so the delay, by offsetPpm
        const offsetMs = offsetPpm * t * 1e-3;
        const delay = start - (ppm - offsetPpm) * s * 1e-3 + (rand() - 0.5) * 0.1;
        d.add(run, t, delay, offsetMs + (offsetPpm * (s - t)) / 1e3);
      }
      t += 1.5; // the pause between answers
    }
  }

  it('finds the drift across runs that each start at their own delay, with its error', () => {
    const d = new DriftEstimator();
    expect(d.estimate()).toBeUndefined();
    feed(d, 208, 4, 6);
    const e = d.estimate()!;
    expect(e.ppm).toBeGreaterThan(203);
    expect(e.ppm).toBeLessThan(213);
    expect(e.errorPpm).toBeLessThan(5);
  });

  it('counts the correction already applied: the same drift whether or not the reference is resampled', () => {
    const d = new DriftEstimator();
    feed(d, -50, 3, 8, -40);
    expect(d.estimate()!.ppm).toBeCloseTo(-50, -1);
  });

  it('takes no stray peak (a reflection) for drift, and says nothing before its estimates span enough time', () => {
    const d = new DriftEstimator();
    for (let s = 0; s < 2; s += 0.28) d.add(0, s, 80, 0);
    expect(d.estimate()).toBeUndefined();
    for (let s = 2; s < 10; s += 0.28) d.add(0, s, Math.round(s / 0.28) % 5 === 0 ? 95 : 80, 0);
    expect(Math.abs(d.estimate()!.ppm)).toBeLessThan(1);
  });
});

describe('DriftResampler (speexdsp)', () => {
  const tone = (n: number, at: (i: number) => number) =>
    Int16Array.from({ length: n }, (_, i) => Math.round(8000 * Math.sin(at(i) * 0.05) + 4000 * Math.sin(at(i) * 0.9)));

  it('stretches the playback by the ratio: a tone at 1.000208 matches the ideal within 60 dB', async () => {
    const r = await DriftResampler.create(RATE, RATE);
    r.setRatio(1.000208);
    const x = tone(RATE * 6, (i) => i);
    const out: number[] = [];
    let pos = 0;
    for (let k = 0; k < 120; k++) {
      const { out: o, used } = r.process(x.subarray(pos, pos + 1200), 960);
      pos += used;
      out.push(...o);
    }
    r.free();
    // the output lags by the resampler's latency (input samples) and consumes 1.000208 input samples per output
    let err = 0;
    let sig = 0;
    for (let c = 2000; c < out.length; c++) {
      const ideal = tone(1, () => c * 1.000208 - r.latency)[0]!;
      err += (out[c]! - ideal) ** 2;
      sig += ideal ** 2;
    }
    expect(10 * Math.log10(sig / err)).toBeGreaterThan(60);
    expect(pos).toBeGreaterThan(960 * 120 * 1.0002);
  });

  it('gives silence for silence whatever ratios it went through (no NaN left in its state)', async () => {
    const r = await DriftResampler.create(RATE, RATE);
    const x = tone(RATE * 10, (i) => i);
    let pos = 0;
    // a drift estimate refined step by step, as EchoPath applies it: these ratios once left NaN in speexdsp's state
    for (const [k, ppm] of [-44, -47, -48, -47.7, -47.6, 12, 208, 209].entries()) {
      r.setRatio(1 + ppm / 1e6);
      for (let j = 0; j < 20; j++) pos += r.process(x.subarray(pos % (RATE * 9), (pos % (RATE * 9)) + 1200), 960).used;
      const quiet = r.process(new Int16Array(1200), 960).out;
      const quieter = r.process(new Int16Array(1200), 960).out;
      expect(Math.max(...quieter.map(Math.abs)), `after ratio ${k}`).toBe(0);
      expect(quiet.every((v) => Number.isFinite(v))).toBe(true);
    }
    r.free();
  });
});

describe('EchoPath with the speaker on another clock', () => {
  /** `seconds` of the agent's speech through a room, the speaker `ppm` fast; ERLE over the last 4 s, the drift */
  async function run(ppm: number, correctDrift: boolean, seconds = 30) {
    const voice = await speech(AGENT_TEXT);
    const played = new Float64Array(RATE * seconds);
    for (let at = RATE / 2; at < played.length; at += voice.length + RATE / 4)
      played.set(voice.subarray(0, Math.min(voice.length, played.length - at)), at);
    const mic = s16(hear(drifted(played, ppm), { delayMs: 60, gainDb: -10 }));
    const ref = s16(played);
    const path = await EchoPath.open({ sampleRate: RATE, startupSuppressDb: 0, correctDrift });
    const frame = 960;
    const out = new Int16Array(mic.length);
    const writeMs = (j: number) => 1000 + ((j * frame) / RATE / (1 + ppm / 1e6)) * 1000;
    let j = 0;
    for (let c = 0; c < mic.length; c += frame) {
      const arrival = 1000 + ((c + frame) / RATE) * 1000 + 3;
      // the speaker asks for each chunk on its own clock
      for (; j * frame < ref.length && writeMs(j) <= arrival; j++)
        path.played(Buffer.from(ref.buffer, j * frame * 2, frame * 2), writeMs(j));
      const cleaned = path.captured(Buffer.from(mic.buffer, c * 2, frame * 2), arrival);
      out.set(new Int16Array(cleaned.buffer, cleaned.byteOffset, frame), c);
    }
    const drift = path.driftPpm;
    path.free();
    let micE = 0;
    let outE = 0;
    const lag = 480; // the canceller's one block
    for (let i = mic.length - RATE * 4; i < mic.length - lag; i++) {
      micE += mic[i]! ** 2;
      outE += out[i + lag]! ** 2;
    }
    return { erle: 10 * Math.log10(micE / outE), drift };
  }

  it('+208 ppm: the drift is measured and the reference resampled; ≥ 25 dB where uncorrected gives under 15', async () => {
    const [fixed, plain] = await Promise.all([run(208, true), run(208, false)]);
    expect(fixed.drift).toBeGreaterThan(198);
    expect(fixed.drift).toBeLessThan(218);
    expect(fixed.erle).toBeGreaterThan(25);
    expect(plain.drift).toBeUndefined();
    expect(plain.erle).toBeLessThan(15);
  });

  it('one clock: no drift is applied', async () => {
    const r = await run(0, true, 16);
    expect(r.drift).toBeUndefined();
    expect(r.erle).toBeGreaterThan(25);
  });
});
