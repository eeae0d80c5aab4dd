// The bulk delay estimator in front of the echo canceller (src/audio/delay-estimator.ts): on espeak-ng speech
// played into a synthetic room with noise it finds the delay of the echo's direct path to a millisecond, commits
// nothing where the microphone does not hear the playback, and follows the delay when the device restarts.
import { describe, expect, it } from 'vitest';
import { DelayEstimator, Fft } from '../../src/audio/delay-estimator.js';
import { AGENT_TEXT, RATE, USER_TEXT, hear, placed, s16, seeded, speech } from './speech-room.js';

const FRAME = 960; // 40 ms, as the session's

/** `ref` and `mic` through a fresh estimator in 40 ms frames; the delays it committed, in order */
function run(ref: Int16Array, mic: Int16Array, est = new DelayEstimator({ sampleRate: RATE })) {
  const commits: number[] = [];
  for (let c = 0; c + FRAME <= ref.length; c += FRAME) {
    if (est.push(ref.subarray(c, c + FRAME), mic.subarray(c, c + FRAME))) commits.push(est.delayMs!);
  }
  return { commits, est };
}

describe('DelayEstimator', () => {
  it.each([20, 80, 150, 300])('finds a %i ms delay within 1 ms (speech, a room, noise at -55 dBFS)', async (ms) => {
    const played = placed(await speech(AGENT_TEXT), 0.5, 8);
    const { commits, est } = run(s16(played), s16(hear(played, { delayMs: ms, gainDb: -20, noiseDb: -55 }, ms)));
    expect(commits).toHaveLength(1);
    expect(Math.abs(est.delayMs! - ms)).toBeLessThanOrEqual(1);
    expect(est.delaySamples).toBe(Math.round((est.delayMs! * RATE) / 1000));
  });

  it('commits nothing when the microphone hears only noise, or speech that is not the playback', async () => {
    const played = s16(placed(await speech(AGENT_TEXT), 0.5, 10));
    const rand = seeded(3);
    const noise = Float64Array.from(played, () => (rand() * 2 - 1) * 0.01);
    const noiseOnly = run(played, s16(noise));
    expect(noiseOnly.commits).toEqual([]);
    expect(noiseOnly.est.delayMs).toBeUndefined();
    // each block was looked at, and none stood out
    expect(noiseOnly.est.last!.confidence).toBeLessThan(10);
    const other = placed(await speech(USER_TEXT, 'en+f3'), 0.2, 10).map((v, i) => v * 0.5 + noise[i]!);
    expect(run(played, s16(other)).commits).toEqual([]);
    // and nothing while nothing plays, whatever the microphone hears
    const silent = run(new Int16Array(played.length), s16(other));
    expect(silent.commits).toEqual([]);
    expect(silent.est.last).toBeUndefined();
  });

  it('follows a new delay (the device restarted with a longer buffer), once the new estimates agree', async () => {
    const voice = await speech(AGENT_TEXT);
    const first = placed(voice, 0.5, 8);
    const second = placed(voice.subarray(RATE * 2), 0.5, 8);
    const mic = [...hear(first, { delayMs: 80, gainDb: -12 }, 1), ...hear(second, { delayMs: 150, gainDb: -12 }, 2)];
    const { commits } = run(s16(Float64Array.from([...first, ...second])), s16(Float64Array.from(mic)));
    expect(commits).toHaveLength(2);
    expect(Math.abs(commits[0]! - 80)).toBeLessThanOrEqual(1);
    expect(Math.abs(commits[1]! - 150)).toBeLessThanOrEqual(1);
  });

  it('takes no echo before its reference (a peak at an end of the lags), drops an unconfirmed delay', async () => {
    const played = placed(await speech(AGENT_TEXT), 0.5, 8);
    // the microphone 20 ms ahead of the reference (a plain path, no reflections): the lag is outside 0-512 ms
    const noise = seeded(8);
    const ahead = played.slice(480).map((v) => v * 0.3 + (noise() * 2 - 1) * 0.001);
    const early = run(s16(played.subarray(0, ahead.length)), s16(ahead));
    expect(early.commits).toEqual([]);
    // a delay committed, then the microphone no longer hears the playback (headphones): dropped after ~1.5 s of it
    const heard = hear(played, { delayMs: 100, gainDb: -10 });
    const rand = seeded(9);
    const deaf = Float64Array.from(played, () => (rand() * 2 - 1) * 0.001);
    const both = run(s16(Float64Array.from([...played, ...played])), s16(Float64Array.from([...heard, ...deaf])));
    expect(both.commits).toHaveLength(2);
    expect(Math.abs(both.commits[0]! - 100)).toBeLessThanOrEqual(1);
    expect(both.commits[1]).toBeUndefined();
    expect(both.est.delaySamples).toBeUndefined();
  });

  it('reject(): the delay before comes back, and the same one is not proposed again for a while', async () => {
    const played = s16(placed(await speech(AGENT_TEXT), 0.5, 8));
    const mic = s16(hear(placed(await speech(AGENT_TEXT), 0.5, 8), { delayMs: 70, gainDb: -10 }));
    const est = new DelayEstimator({ sampleRate: RATE });
    const proposed: (number | undefined)[] = [];
    for (let c = 0; c + FRAME <= played.length; c += FRAME) {
      if (!est.push(played.subarray(c, c + FRAME), mic.subarray(c, c + FRAME))) continue;
      proposed.push(est.delayMs);
      est.reject();
      expect(est.delaySamples).toBeUndefined();
    }
    // proposed, refused, then proposed again once the refusal (16 blocks of playback, ~4 s) ran out: not every block
    expect(proposed.length).toBeGreaterThanOrEqual(1);
    expect(proposed.length).toBeLessThanOrEqual(2);
    for (const ms of proposed) expect(Math.abs(ms! - 70)).toBeLessThanOrEqual(1);
  });

  it('takes the two sides alike, and works at 8 kHz (G.711 sessions)', async () => {
    expect(() => new DelayEstimator({ sampleRate: RATE }).push(new Int16Array(960), new Int16Array(480))).toThrow(
      /960 and 480 samples/,
    );
    const played = placed(await speech(AGENT_TEXT), 0.5, 8);
    const mic = hear(played, { delayMs: 120, gainDb: -10 });
    // 8 kHz: every third sample (the room's response as heard at 24 kHz is fine for a delay)
    const third = (x: Float64Array) => s16(x.filter((_, i) => i % 3 === 0));
    const est = new DelayEstimator({ sampleRate: 8000 });
    const ref8 = third(played);
    const mic8 = third(mic);
    for (let c = 0; c + 320 <= ref8.length; c += 320) est.push(ref8.subarray(c, c + 320), mic8.subarray(c, c + 320));
    expect(Math.abs(est.delayMs! - 120)).toBeLessThanOrEqual(1);
  });
});

describe('Fft', () => {
  it('transforms and back (inverse / size), and refuses a size that is not a power of two', () => {
    const fft = new Fft(8);
    const re = Float64Array.from([1, 2, 3, 4, 0, -1, 0.5, 2]);
    const im = new Float64Array(8);
    fft.transform(re, im);
    // bin 0 is the sum; bin 4 the alternating sum
    expect(re[0]).toBeCloseTo(11.5);
    expect(re[4]).toBeCloseTo(1 - 2 + 3 - 4 + 0 + 1 + 0.5 - 2);
    fft.transform(re, im, true);
    expect(Array.from(re, (v) => +(v / 8).toFixed(9))).toEqual([1, 2, 3, 4, 0, -1, 0.5, 2]);
    expect(() => new Fft(12)).toThrow(/not a power of two/);
  });
});
