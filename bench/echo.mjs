// Echo cancellation (`realtime talk --aec`): simulated echo paths fed through the capture path (EchoPath: the
// playback placed on the capture's clock and resampled by the drift measured, the bulk delay, speexdsp's canceller
// and residual echo suppressor, the start-up hold). The agent's voice (espeak-ng) is written to a simulated speaker
// in 40 ms chunks when the device asks for them (on its own clock), heard after the device's output latency through
// a synthetic room impulse response (direct path, early reflections, an exponentially decaying tail of the path's
// RT60) plus room noise; near-end speech (espeak-ng, another voice) joins for the double-talk part. Captured 40 ms
// frames arrive a few ms late with jitter, as from arecord. The paths (PATHS): the three rooms of the first
// version; RT60 300 and 600 ms with a tanh loudspeaker nonlinearity; the output latency jumping 80 → 200 ms in the
// middle of speech and 250 → 40 ms in a pause (an OS audio route change); the speaker's clock running −208, −50,
// +50, +208 ppm off the microphone's (two devices: each chunk is consumed n·(1 + drift) samples per n captured, a
// windowed-sinc interpolation); fan noise (-50 dBFS, low-passed, a 100 Hz hum) with double talk; all of them at
// once. Figures per path, each a row (goals where the issue set one):
// - ERLE after convergence: 10·log10(Σ mic² / Σ out²) over the single-talk part after the convergence time (less
//   the 2 s after a delay jump), in 20 ms blocks where the agent's echo is at least 10 dB above the noise, with the
//   start-up hold off (goal ≥ 25 dB) and on; within 2 s of a delay jump (goal ≥ 15 dB);
// - convergence: from the first echo until the ERLE over 0.5 s first reaches 20 dB;
// - the hold: how long it held the output down over the first 3 s of echo (goal ≤ 1 s), how long the start-up
//   suppressor then worked instead (StartupSuppressor), and the share of the far end's time after its first second
//   during which the output was held down (goal ≤ 10 %); the same share for the path-change suppressor (EchoPath's:
//   an echo path that changed under the converged canceller, held down until the new delay is used), hold off;
// - false barge-ins: turns the emulator's server VAD (its EnergyVad, threshold 0.5) starts on the output (hold on)
//   while only the agent speaks (goal 0); and over 20 turns of answers and pauses with ±208 ppm of drift;
// - on three paths, the near end talking over the agent's first seconds: kept by the suppressor, and by the hold
//   alone (as before it);
// - near-end kept in double talk: the correlation of the output with the clean near-end speech (as captured, with
//   the room noise) over the blocks where the near end talks (goal ≥ 0.9), and its level in the output (goal
//   within 3 dB);
// - the drift measured (true: the path's), the bulk delay found;
// - CPU per second of audio, as a ratio of real time (goal ≤ 0.05x).
// `ECHO_PATHS=drift npm run bench -- echo` runs only the paths whose name contains "drift".
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RATE = 24000;
const CHUNK = 960; // 40 ms: the session's frame, and the playback's writes
const FAR_TEXT =
  'Hello, I am the assistant. Today the weather in Paris is sunny with a light breeze, and tomorrow it will ' +
  'rain in the afternoon. Would you like me to book a table for dinner, or shall I read you the news of the day? ' +
  'The museum opens at nine and closes at six, except on Mondays.';
const NEAR_TEXT = 'Wait, stop please. I would rather hear about the trains to Lyon tomorrow morning.';
const NOISE_DBFS = -65;
/** the near-end talker at the microphone: 10 dB below the agent's voice at the speaker (louder than some echoes) */
const NEAR_GAIN = 10 ** (-10 / 20);
/** the paths: the room (direct path delay and level, RT60), the device's output latency (and its jump), drift */
const ROOM = { delayMs: 50, gainDb: -10, rt60: 0.3 };
const PATHS = [
  { name: '20 ms -6 dB room', room: { delayMs: 20, gainDb: -6, rt60: 0.3 } },
  { name: '80 ms -12 dB room', room: { delayMs: 80, gainDb: -12, rt60: 0.3 }, startTalk: true },
  { name: '150 ms -20 dB room', room: { delayMs: 150, gainDb: -20, rt60: 0.3 } },
  { name: 'RT60 300 ms, tanh speaker', room: { ...ROOM, rt60: 0.3 }, tanh: true },
  { name: 'RT60 600 ms, tanh speaker', room: { ...ROOM, rt60: 0.6 }, tanh: true },
  // (the near end comes after the 2 s that follow the jump's first echo: that window is single talk)
  {
    name: 'delay jump 80 -> 200 ms mid-speech',
    room: { ...ROOM, delayMs: 20 },
    latencyMs: 60,
    jump: { toMs: 180 },
    singleTalkS: 11,
  },
  {
    name: 'delay jump 250 -> 40 ms in a pause',
    room: { ...ROOM, delayMs: 20 },
    latencyMs: 230,
    jump: { toMs: 20, pause: true },
    singleTalkS: 11,
  },
  { name: 'drift -208 ppm', driftPpm: -208, singleTalkS: 24 },
  { name: 'drift -50 ppm', driftPpm: -50, singleTalkS: 24 },
  { name: 'drift +50 ppm', driftPpm: 50, singleTalkS: 24 },
  { name: 'drift +208 ppm', driftPpm: 208, singleTalkS: 24, startTalk: true },
  { name: 'fan noise, double talk', fan: true },
  {
    name: 'all at once',
    room: { ...ROOM, rt60: 0.6 },
    tanh: true,
    driftPpm: 208,
    latencyMs: 60,
    jump: { toMs: 180 },
    fan: true,
    singleTalkS: 24,
    startTalk: true,
  },
];
const OUTPUT_LATENCY_MS = 30;
const SINGLE_TALK_S = 9;
/** a delay jump happens this long into the agent's speech (after convergence), or in the pause placed there */
const JUMP_AT_S = 7;
const PAUSE_S = 1.2;

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function speak(text, voice, dir, name) {
  const { decodeAudio, PcmConverter } = await import('../packages/formats/dist/audio-codecs.js');
  const wav = join(dir, `${name}.wav`);
  execFileSync('/usr/bin/espeak-ng', ['-v', voice, '-s', '160', '-w', wav, text]);
  const { pcm, format } = await decodeAudio(readFileSync(wav));
  const out = new PcmConverter(format, { sampleRate: RATE, channels: 1 }).push(pcm);
  const s16 = new Int16Array(out.buffer, out.byteOffset, out.length >> 1);
  return Float64Array.from(s16, (v) => v / 32768);
}

/** A synthetic room impulse response: the direct path, six early reflections, a decaying diffuse tail (RT60). */
function roomResponse({ delayMs, gainDb, rt60 }, seed) {
  const rand = rng(seed);
  const g = 10 ** (gainDb / 20);
  const d = Math.round((delayMs / 1000) * RATE);
  const tail = Math.round(rt60 * RATE);
  const h = new Float64Array(d + tail);
  h[d] = g;
  for (let i = 0; i < 6; i++) h[d + Math.round((2 + rand() * 25) * 24)] += g * (rand() - 0.5) * 0.8;
  // -60 dB over the RT60; the diffuse part starts 25 ms after the direct sound at -15 dB of it
  for (let i = Math.round(0.025 * RATE); i < tail; i++)
    h[d + i] += g * 0.18 * (rand() * 2 - 1) * 10 ** ((-3 * i) / (rt60 * RATE));
  return h;
}

/** `x` played by a device whose clock runs `ppm` fast: sample c of the result is x at c·(1 + ppm/1e6) (sinc) */
function throughClock(x, ppm) {
  if (!ppm) return x;
  const r = 1 + ppm / 1e6;
  const y = new Float64Array(x.length);
  const half = 16;
  for (let c = 0; c < x.length; c++) {
    const p = c * r;
    const i = Math.floor(p);
    const f = p - i;
    let v = 0;
    for (let k = -half + 1; k <= half; k++) {
      const j = i + k;
      if (j < 0 || j >= x.length) continue;
      const t = k - f;
      const w = 0.5 + 0.5 * Math.cos((Math.PI * t) / half);
      v += x[j] * (t === 0 ? 1 : Math.sin(Math.PI * t) / (Math.PI * t)) * w;
    }
    y[c] = v;
  }
  return y;
}

/** the device's output: `x` after its latency, which changes from `fromS` samples on (the route changed) */
function throughDevice(x, latency, jump) {
  const y = new Float64Array(x.length);
  for (let t = 0; t < x.length; t++) {
    let at = t - latency;
    if (jump && t >= jump.at) {
      // longer: the device's queue grew, silence while it fills; shorter: it resumes sooner (in a pause)
      at = t - jump.latency;
      if (jump.latency > latency && t < jump.at + jump.latency - latency) continue;
    }
    if (at >= 0) y[t] = x[at];
  }
  return y;
}

/** fan noise: low-passed white noise at -50 dBFS and a 100 Hz hum */
function fanNoise(len, seed) {
  const rand = rng(seed);
  const y = new Float64Array(len);
  let lp = 0;
  for (let i = 0; i < len; i++) {
    lp += 0.12 * (rand() * 2 - 1 - lp);
    y[i] = lp * 0.02 + 0.001 * Math.sin((2 * Math.PI * 100 * i) / RATE);
  }
  return y;
}

/** y = x * h (same length as x), by FFT */
function convolve(x, h) {
  let size = 1;
  while (size < x.length + h.length) size <<= 1;
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  const hr = new Float64Array(size);
  const hi = new Float64Array(size);
  re.set(x);
  hr.set(h);
  fft(re, im, false);
  fft(hr, hi, false);
  for (let i = 0; i < size; i++) {
    const a = re[i] * hr[i] - im[i] * hi[i];
    im[i] = re[i] * hi[i] + im[i] * hr[i];
    re[i] = a;
  }
  fft(re, im, true);
  return re.slice(0, x.length).map((v) => v / size);
}

/** in-place radix-2 FFT (inverse without the 1/n) */
function fft(re, im, inverse) {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = ((inverse ? 2 : -2) * Math.PI) / len;
    const wr = Math.cos(ang);
    const wi = Math.sin(ang);
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = i + k;
        const b = a + len / 2;
        const tr = re[b] * cr - im[b] * ci;
        const ti = re[b] * ci + im[b] * cr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
        const t = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = t;
      }
    }
  }
}

const toS16 = (x) => Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32768))));
const energy = (x, a, b) => {
  let s = 0;
  for (let i = a; i < b; i++) s += x[i] * x[i];
  return s;
};
const db = (r) => 10 * Math.log10(r);

/** `far` repeated (0.4 s apart) to `seconds`, a pause of PAUSE_S inserted at `pauseAt` (s) if given */
function farSpeech(far, seconds, pauseAt) {
  const out = new Float64Array(Math.round(seconds * RATE));
  const gap = Math.round(0.4 * RATE);
  const cut = pauseAt === undefined ? -1 : Math.round(pauseAt * RATE);
  const pause = Math.round(PAUSE_S * RATE);
  for (let at = 0, i = 0; at < out.length; i++, at++) {
    if (at === cut) at += pause;
    const k = i % (far.length + gap);
    if (at < out.length && k < far.length) out[at] = far[k];
  }
  return out;
}

/** One path's signals: what is played, what the microphone hears (echo, noise, the near end), where things are. */
function buildPath(path, far, near, seed) {
  const singleS = path.singleTalkS ?? SINGLE_TALK_S;
  const len = Math.ceil(((singleS + near.length / RATE + 1) * RATE) / CHUNK) * CHUNK;
  const played = new Float64Array(len);
  const pauseAt = path.jump?.pause ? JUMP_AT_S : undefined;
  played.set(farSpeech(far, (len - 1.5 * RATE) / RATE, pauseAt), Math.round(0.5 * RATE));
  const latency = Math.round(((path.latencyMs ?? OUTPUT_LATENCY_MS) / 1000) * RATE);
  const jump = path.jump && {
    at: Math.round((0.5 + JUMP_AT_S + (path.jump.pause ? PAUSE_S / 2 : 0)) * RATE),
    latency: Math.round((path.jump.toMs / 1000) * RATE),
  };
  let heard = throughDevice(throughClock(played, path.driftPpm ?? 0), latency, jump);
  if (path.tanh) heard = heard.map((v) => Math.tanh(1.5 * v) / 1.5);
  const echo = convolve(heard, roomResponse(path.room ?? ROOMS_DEFAULT, seed));
  const rand = rng(seed + 1);
  const noiseAmp = 10 ** (NOISE_DBFS / 20) * Math.sqrt(3);
  const fan = path.fan ? fanNoise(len, seed + 3) : undefined;
  const noise = Float64Array.from({ length: len }, (_, i) => (rand() * 2 - 1) * noiseAmp + (fan ? fan[i] : 0));
  const nearAt = singleS * RATE;
  const nearClean = new Float64Array(len);
  nearClean.set(
    near.subarray(0, len - nearAt).map((v) => v * NEAR_GAIN),
    nearAt,
  );
  const mic = echo.map((v, i) => v + noise[i] + nearClean[i]);
  return { played, mic, echo, noise, nearClean, nearAt, len, jumpAt: jump?.at, driftPpm: path.driftPpm ?? 0 };
}
const ROOMS_DEFAULT = ROOM;

/** The signals through EchoPath at simulated times; the playback written when its device (its clock) asks. */
async function runPath(sig, seed, startupSuppressDb, correctDrift = true, startupSuppressor = true) {
  const { EchoPath } = await import('../dist/audio/echo-canceller.js');
  const { len } = sig;
  const path = await EchoPath.open({ sampleRate: RATE, startupSuppressDb, correctDrift, startupSuppressor });
  const out = new Float64Array(len);
  const held = new Uint8Array(len / CHUNK);
  const changing = new Uint8Array(len / CHUNK);
  const suppressing = new Uint8Array(len / CHUNK);
  const micS16 = toS16(sig.mic);
  const playedS16 = toS16(sig.played);
  const t0 = 1000; // ms on the simulated clock
  const writeMs = (j) => t0 + ((j * CHUNK) / RATE / (1 + sig.driftPpm / 1e6)) * 1000;
  const jitter = rng(seed + 2);
  let j = 0;
  const cpu = process.cpuUsage();
  for (let c = 0; c < len; c += CHUNK) {
    // the playback writes each chunk when its device is due to play it (by the frame's arrival, it was); a captured
    // frame arrives 2-10 ms after its last sample
    const arrival = t0 + ((c + CHUNK) / RATE) * 1000 + 2 + jitter() * 8;
    for (; j * CHUNK < len && writeMs(j) <= arrival; j++)
      path.played(Buffer.from(playedS16.buffer, j * CHUNK * 2, CHUNK * 2), writeMs(j));
    const frame = Buffer.from(micS16.buffer, c * 2, CHUNK * 2);
    const cleaned = path.captured(frame, arrival);
    const s = new Int16Array(cleaned.buffer, cleaned.byteOffset, CHUNK);
    for (let i = 0; i < CHUNK; i++) out[c + i] = s[i] / 32768;
    held[c / CHUNK] = path.holding ? 1 : 0;
    suppressing[c / CHUNK] = path.suppressing ? 1 : 0;
    changing[c / CHUNK] = path.changing ? 1 : 0;
  }
  const used = process.cpuUsage(cpu);
  const { echoDelayMs: delayMs, driftPpm } = path;
  // lined up with the input: the canceller's output lags by one block
  const lag = path.latencySamples;
  path.free();
  out.copyWithin(0, lag).fill(0, len - lag);
  return { ...sig, out, held, changing, suppressing, cpuMs: (used.user + used.system) / 1000, delayMs, driftPpm };
}

/** the turns the emulator's server VAD (threshold 0.5, as a session's default) starts on `out` over [from, to) */
async function vadStarts(out, from, to) {
  const { EnergyVad } = await import('../packages/emulator/dist/realtime/realtime-vad.js');
  const vad = new EnergyVad(RATE, { threshold: 0.5, silenceMs: 500, prefixMs: 300 });
  return vad.push(toS16(out.subarray(from, to))).filter((e) => e.type === 'start').length;
}

const BLOCK = RATE / 50;

/** ERLE (dB) over the blocks of [a, b) where the echo is 10 dB over the noise; NaN where there are none */
function erle(r, a, b, noiseE, skip = () => false) {
  let micE = 0;
  let outE = 0;
  for (let x = a; x + BLOCK <= b; x += BLOCK) {
    if (skip(x) || energy(r.echo, x, x + BLOCK) / BLOCK <= noiseE * 10) continue;
    micE += energy(r.mic, x, x + BLOCK);
    outE += energy(r.out, x, x + BLOCK);
  }
  return micE ? db(micE / outE) : Number.NaN;
}

/**
 * from the first echo until the ERLE over 500 ms first reaches 20 dB, over the window's blocks where the echo is
 * 10 dB over the noise (as the ERLE's), in windows where most blocks are such. (Before: windows whose echo was 30 dB
 * over the noise: under fan noise, with the echo 24 dB over it on average, the mark came after the single talk and
 * the ERLE read NaN.)
 */
function convergence(r, firstEcho, noiseE) {
  const win = RATE / 2;
  for (let a = firstEcho; a + win <= r.nearAt; a += BLOCK) {
    let loud = 0;
    for (let x = a; x + BLOCK <= a + win; x += BLOCK) if (energy(r.echo, x, x + BLOCK) / BLOCK > noiseE * 10) loud++;
    if (loud * BLOCK * 2 < win) continue;
    if (erle(r, a, a + win, noiseE) >= 20) return a + win;
  }
  return r.nearAt;
}

/** the near end in double talk: the blocks where it is 20 dB over the noise while the agent's echo is there */
function doubleTalk(r, noiseE) {
  const ref = r.nearClean.map((v, i) => v + r.noise[i]);
  let [sxy, sxx, syy, mxy, myy, blocks] = [0, 0, 0, 0, 0, 0];
  for (let a = r.nearAt; a + BLOCK <= r.len; a += BLOCK) {
    const echoOn = energy(r.echo, a, a + BLOCK) / BLOCK > noiseE * 10;
    if (energy(r.nearClean, a, a + BLOCK) / BLOCK < noiseE * 100 || !echoOn) continue;
    blocks++;
    for (let i = a; i < a + BLOCK; i++) {
      sxy += ref[i] * r.out[i];
      sxx += ref[i] * ref[i];
      syy += r.out[i] * r.out[i];
      mxy += ref[i] * r.mic[i];
      myy += r.mic[i] * r.mic[i];
    }
  }
  return {
    correlation: sxy / Math.sqrt(sxx * syy),
    micCorrelation: mxy / Math.sqrt(sxx * myy),
    nearLevelDb: db(syy / sxx),
    doubleTalkS: (blocks * BLOCK) / RATE,
  };
}

/** the time the output was held down over `span` samples from the first echo (samples) */
function heldFor(r, firstEcho, span) {
  let held = 0;
  for (let c = Math.floor(firstEcho / CHUNK); c * CHUNK < firstEcho + span && c < r.held.length; c++)
    held += r.held[c] * (Math.min((c + 1) * CHUNK, firstEcho + span) - Math.max(c * CHUNK, firstEcho));
  return held;
}

/** the share of the far end's time after its first second during which the hold was on */
function holdShare(r, firstEcho, noiseE) {
  let on = 0;
  let all = 0;
  for (let f = 0; f < r.held.length; f++) {
    const a = f * CHUNK;
    if (a < firstEcho + RATE || energy(r.echo, a, a + CHUNK) / CHUNK <= noiseE * 10) continue;
    all++;
    on += r.held[f];
  }
  return all ? on / all : 0;
}

function figures(r, held) {
  const noiseE = energy(r.noise, 0, r.noise.length) / r.noise.length;
  const firstEcho = r.echo.findIndex((v) => Math.abs(v) > 1e-4);
  const converged = convergence(r, firstEcho, noiseE);
  const jumpWindow = (rr) => {
    if (rr.jumpAt === undefined) return undefined;
    let a = rr.jumpAt;
    while (a < rr.nearAt && energy(rr.echo, a, a + BLOCK) / BLOCK <= noiseE * 10) a += BLOCK;
    return [a, a + 2 * RATE];
  };
  const w = jumpWindow(r);
  const inJump = (x) => w !== undefined && x >= w[0] && x < w[1];
  return {
    erle: erle(r, converged, r.nearAt, noiseE, inJump),
    erleHeld: erle(held, converged, held.nearAt, noiseE, inJump),
    jumpErle: w && erle(r, w[0], w[1], noiseE),
    jumpErleHeld: w && erle(held, w[0], w[1], noiseE),
    echoOverNoise: db(energy(r.echo, firstEcho, r.nearAt) / (r.nearAt - firstEcho) / noiseE),
    convergenceS: (converged - firstEcho) / RATE,
    // (the time held over the first 3 s of echo: a hold that ends and comes back counts each time)
    holdS: heldFor(held, firstEcho, 3 * RATE),
    suppressS: (held.suppressing.reduce((a, b) => a + b, 0) * CHUNK) / RATE,
    holdShare: holdShare(held, firstEcho, noiseE),
    changeShare: holdShare({ ...r, held: r.changing }, firstEcho, noiseE),
    ...doubleTalk(r, noiseE),
  };
}

async function pathRows(path, f, r, held) {
  const name = `${path.name}:`;
  const rows = [
    { name: `${name} echo over the room noise`, value: f.echoOverNoise, unit: 'dB' },
    { name: `${name} bulk delay found at the end`, value: r.delayMs ?? Number.NaN, unit: 'ms' },
  ];
  if (path.driftPpm)
    rows.push({ name: `${name} drift measured (true ${path.driftPpm})`, value: r.driftPpm ?? Number.NaN, unit: 'ppm' });
  rows.push(
    { name: `${name} ERLE after convergence, hold off`, value: f.erle, unit: 'dB', atLeast: 25 },
    { name: `${name} ERLE after convergence, hold on`, value: f.erleHeld, unit: 'dB', atLeast: 25 },
  );
  if (f.jumpErle !== undefined)
    rows.push(
      { name: `${name} ERLE in the 2 s after the jump, hold off`, value: f.jumpErle, unit: 'dB', atLeast: 15 },
      { name: `${name} ERLE in the 2 s after the jump, hold on`, value: f.jumpErleHeld, unit: 'dB', atLeast: 15 },
    );
  rows.push(
    { name: `${name} convergence (to 20 dB ERLE over 0.5 s)`, value: f.convergenceS, unit: 's' },
    { name: `${name} start-up hold lasted`, value: f.holdS / RATE, unit: 's', goal: 1 },
    { name: `${name} start-up suppressor worked (after the hold)`, value: f.suppressS, unit: 's' },
    { name: `${name} hold on, share of far end after 1 s`, value: f.holdShare * 100, unit: '%', goal: 10 },
    { name: `${name} path-change hold, share of far end after 1 s`, value: f.changeShare * 100, unit: '%' },
    {
      name: `${name} false barge-ins (server VAD on the output)`,
      value: await vadStarts(held.out, 0, held.nearAt),
      goal: 0,
    },
    {
      name: `${name} double talk: corr. with near end (mic ${f.micCorrelation.toFixed(2)})`,
      value: f.correlation,
      atLeast: 0.9,
    },
    {
      name: `${name} double talk: near-end level change, magnitude`,
      value: Math.abs(f.nearLevelDb),
      unit: 'dB',
      goal: 3,
    },
  );
  const audioS = r.len / RATE;
  rows.push({
    name: `${name} CPU per second of audio`,
    value: r.cpuMs / audioS,
    unit: 'ms',
    ratio: r.cpuMs / 1000 / audioS,
    baseline: 'real time',
    goal: 0.05,
  });
  return rows;
}

/**
 * The near end talking over the agent's first seconds (from 1 s after the first echo, for 2 s): kept by the start-up
 * suppressor, against the hold alone (as before it), over the blocks where it is 20 dB over the noise while the echo
 * is there; and the false barge-ins before it talks.
 */
async function startTalkRows(path, sig, near, seed) {
  const firstEcho = sig.echo.findIndex((v) => Math.abs(v) > 1e-4);
  const at = Math.ceil((firstEcho + RATE) / CHUNK) * CHUNK;
  const nearClean = new Float64Array(sig.len);
  nearClean.set(
    near.subarray(0, Math.min(near.length, sig.len - at)).map((v) => v * NEAR_GAIN),
    at,
  );
  const mic = sig.echo.map((v, j) => v + sig.noise[j] + nearClean[j]);
  const talk = { ...sig, nearClean, mic, nearAt: at };
  const noiseE = energy(sig.noise, 0, sig.noise.length) / sig.noise.length;
  const window = (r) => doubleTalk({ ...r, len: at + 2 * RATE }, noiseE);
  const suppressed = window(await runPath(talk, seed, undefined));
  const held = window(await runPath(talk, seed, undefined, true, false));
  const name = `${path.name}: near end at the start`;
  return [
    { name: `${name}, corr. (mic ${suppressed.micCorrelation.toFixed(2)}): suppressor`, value: suppressed.correlation },
    { name: `${name}, corr.: the hold alone (before)`, value: held.correlation },
    { name: `${name}, level change: suppressor`, value: suppressed.nearLevelDb, unit: 'dB' },
    { name: `${name}, level change: the hold alone (before)`, value: held.nearLevelDb, unit: 'dB' },
  ];
}

/** 20 answers of ~4 s, 1.5 s apart (the user's turn), with the speaker's clock `ppm` off: false barge-ins */
async function twentyTurns(far, ppm, seed) {
  const answer = Math.round(4 * RATE);
  const pause = Math.round(1.5 * RATE);
  const len = Math.ceil((20 * (answer + pause) + RATE) / CHUNK) * CHUNK;
  const played = new Float64Array(len);
  for (let t = 0; t < 20; t++) {
    const from = (t * RATE) % (far.length - answer);
    played.set(far.subarray(from, from + answer), Math.round(0.5 * RATE) + t * (answer + pause));
  }
  const heard = throughDevice(throughClock(played, ppm), Math.round((OUTPUT_LATENCY_MS / 1000) * RATE));
  const echo = convolve(heard, roomResponse(ROOM, seed));
  const rand = rng(seed + 1);
  const noiseAmp = 10 ** (NOISE_DBFS / 20) * Math.sqrt(3);
  const noise = Float64Array.from({ length: len }, () => (rand() * 2 - 1) * noiseAmp);
  const mic = echo.map((v, i) => v + noise[i]);
  const sig = { played, mic, echo, noise, nearClean: new Float64Array(len), nearAt: len, len, driftPpm: ppm };
  const r = await runPath(sig, seed, undefined);
  return { starts: await vadStarts(r.out, 0, len), driftPpm: r.driftPpm };
}

export default async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-echo-'));
  const only = process.env.ECHO_PATHS;
  const rows = [];
  try {
    const far = await speak(FAR_TEXT, 'en-us', dir, 'far');
    const near = await speak(NEAR_TEXT, 'en+f3', dir, 'near');
    for (const [i, path] of PATHS.entries()) {
      if (only && !path.name.includes(only)) continue;
      const sig = buildPath(path, far, near, 7 + i);
      // the canceller's own figures: without the start-up hold (EchoPath's StartupGuard), which would flatter them
      const r = await runPath(sig, 7 + i, 0);
      const held = await runPath(sig, 7 + i, undefined);
      rows.push(...(await pathRows(path, figures(r, held), r, held)));
      if (path.startTalk) rows.push(...(await startTalkRows(path, sig, near, 7 + i)));
      if (path.driftPpm) {
        const before = await runPath(sig, 7 + i, 0, false);
        const f = figures(before, held);
        rows.push({ name: `${path.name}: ERLE, hold off, drift not corrected`, value: f.erle, unit: 'dB' });
      }
    }
    for (const ppm of [208, -208]) {
      if (only && !'20 turns'.includes(only)) continue;
      const t = await twentyTurns(far, ppm, 40);
      const name = `20 turns, drift ${ppm > 0 ? '+' : ''}${ppm} ppm:`;
      rows.push({ name: `${name} false barge-ins (server VAD)`, value: t.starts, goal: 0 });
      rows.push({ name: `${name} drift measured`, value: t.driftPpm ?? Number.NaN, unit: 'ppm' });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
