// The start-up echo suppressor (src/audio/echo-suppressor.ts): the echo a canceller has not learnt, predicted from the
// reference, held down where it is and the near end let through where it is not; off, a fixed delay and nothing else;
// and in EchoPath it takes over from the start-up hold once a trained canceller learnt the room, in the first burst
// only.
import { describe, expect, it } from 'vitest';
import { EchoPath } from '../../src/audio/echo-canceller.js';
import { SUPPRESSOR_DELAY, StartupSuppressor } from '../../src/audio/echo-suppressor.js';
import { AGENT_TEXT, hear, placed, s16, speech } from './speech-room.js';

const RATE = 24000;
const BLOCK = 960;

/** a sum of sines at `hz`, each at `amp` */
function tones(n: number, hz: number[], amp: number, phase = 0): Float64Array {
  return Float64Array.from({ length: n }, (_, i) =>
    hz.reduce((s, f, k) => s + amp * Math.sin((2 * Math.PI * f * i) / RATE + phase + k), 0),
  );
}

/** the level of `hz` in x[a, b) (Goertzel), as power */
function level(x: Int16Array | Float64Array, hz: number, a: number, b: number): number {
  const w = (2 * Math.PI * hz) / RATE;
  let s1 = 0;
  let s2 = 0;
  for (let i = a; i < b; i++) {
    const s = x[i]! + 2 * Math.cos(w) * s1 - s2;
    s2 = s1;
    s1 = s;
  }
  return s1 * s1 + s2 * s2 - 2 * Math.cos(w) * s1 * s2;
}

const db = (r: number) => 10 * Math.log10(r);
const toS16 = (x: Float64Array) => Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v))));

/** blocks of (mic, ref) through the suppressor, the output as the canceller's (it removed nothing) */
function run(mic: Int16Array, ref: Int16Array, on: boolean): Int16Array {
  const s = new StartupSuppressor(RATE, BLOCK);
  const out = new Int16Array(mic.length);
  for (let c = 0; c + BLOCK <= mic.length; c += BLOCK) {
    const block = mic.slice(c, c + BLOCK);
    s.apply(block, on ? { mic: mic.subarray(c, c + BLOCK), ref: ref.subarray(c, c + BLOCK) } : undefined);
    out.set(block, c);
  }
  return out;
}

describe('the start-up echo suppressor', () => {
  // the agent's "voice": low harmonics; the echo is its reference at -6 dB with a short tail, already lined up
  const n = RATE * 2;
  const far = tones(n, [300, 600, 900], 3000);
  const ref = toS16(far);
  const echo = Float64Array.from(far, (v, i) => 0.5 * v + (i >= 240 ? 0.15 * far[i - 240]! : 0));

  it('holds down an echo the canceller has not learnt, from the reference alone (≥ 20 dB)', () => {
    const mic = toS16(echo);
    const out = run(mic, ref, true);
    // after its first half second (the coupling learnt), every tone of the echo is 20 dB down or more
    for (const hz of [300, 600, 900])
      expect(db(level(mic, hz, RATE, n) / level(out, hz, RATE, n)), `${hz} Hz`).toBeGreaterThanOrEqual(20);
  });

  it('lets the near end through where the echo is not (within 3 dB)', () => {
    // the near end talks at 3 kHz from 1 s on, as loud as the echo
    const near = tones(n, [3000], 2000, 1).map((v, i) => (i >= RATE ? v : 0));
    const mic = toS16(echo.map((v, i) => v + near[i]!));
    const out = run(mic, ref, true);
    const kept = db(level(out, 3000, RATE + BLOCK, n) / level(mic, 3000, RATE + BLOCK, n));
    expect(Math.abs(kept)).toBeLessThanOrEqual(3);
    expect(db(level(mic, 600, RATE + BLOCK, n) / level(out, 600, RATE + BLOCK, n))).toBeGreaterThanOrEqual(20);
  });

  it('off, delays the output by its filter and changes nothing else', () => {
    const mic = toS16(echo);
    const out = run(mic, ref, false);
    for (let i = SUPPRESSOR_DELAY; i < mic.length; i++)
      if (out[i] !== mic[i - SUPPRESSOR_DELAY]) expect.fail(`at ${i}`);
    expect(out.subarray(0, SUPPRESSOR_DELAY).every((v) => v === 0)).toBe(true);
  });
});

describe('EchoPath at the start', () => {
  it('hands over from the hold to the suppressor once the room is learnt, in the first answer only', async () => {
    // the agent's answer twice, 1 s apart, through an 80 ms -12 dB room
    const voice = placed(await speech(AGENT_TEXT), 0.5, 9);
    const twice = Float64Array.from([...voice, ...voice]);
    const played = s16(twice);
    const mic = s16(hear(twice, { delayMs: 80, gainDb: -12 }, 8));
    const path = await EchoPath.open({ sampleRate: RATE });
    const states: string[] = [];
    for (let c = 0; c + BLOCK <= mic.length; c += BLOCK) {
      path.played(Buffer.from(played.buffer, c * 2, BLOCK * 2), 1000 + c / 24);
      path.captured(Buffer.from(mic.buffer, c * 2, BLOCK * 2), 1000 + (c + BLOCK) / 24 + 3);
      states.push(path.suppressing ? 's' : path.holding ? 'h' : '-');
      expect(path.holding && path.suppressing).toBe(false);
    }
    path.free();
    const firstEcho = Math.floor((RATE * 0.5) / BLOCK);
    const first = states.indexOf('s');
    // held until the delay is found (~0.4 s after the first echo), then suppressed, then neither
    expect(first).toBeGreaterThan(firstEcho);
    expect(((first - firstEcho) * BLOCK) / RATE).toBeLessThanOrEqual(0.6);
    expect(states.slice(firstEcho, first).every((s) => s === 'h')).toBe(true);
    expect(states.lastIndexOf('s')).toBeLessThan(voice.length / BLOCK);
    expect(path.suppressedMs).toBeGreaterThan(0);
    expect(path.heldMs).toBeLessThan(((first + 1) * BLOCK * 1000) / RATE);
  });
});
