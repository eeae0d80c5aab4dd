// Echo cancellation (`realtime talk --aec`): a simulated room fed through the capture path (EchoPath: the playback
// placed on the capture's clock, speexdsp's canceller and residual echo suppressor). The agent's voice (espeak-ng)
// is written to a simulated speaker in 40 ms chunks, heard after the device's latency through a synthetic room
// impulse response (direct path 20-150 ms later at -6 to -20 dB, early reflections, an exponentially decaying tail
// with 300 ms RT60) plus room noise; near-end speech (espeak-ng, another voice) joins for the double-talk part.
// Captured 40 ms frames arrive a few ms late with jitter, as from arecord. Figures per room:
// - the bulk delay EchoPath's estimator found between the playback and its echo (true: the 30 ms output latency +
//   the direct path's delay), by which it moves the reference (less a 10 ms margin) before the canceller;
// - ERLE after convergence: 10·log10(Σ mic² / Σ out²) over the single-talk part after the convergence time, in
//   20 ms blocks where the agent's echo is at least 10 dB above the noise (the goal: ≥ 25 dB);
// - convergence: from the first echo until the last 200 ms window of single talk whose ERLE is below 20 dB;
// - near-end kept in double talk: the correlation of the output with the clean near-end speech (as captured, with
//   the room noise) over the blocks where the near-end talks (the goal: ≥ 0.9), and its level in the output;
// - CPU per second of audio, as a ratio of real time (EchoPath's process time, the delay estimator's included, over
//   the audio's length);
// - how long the start-up hold lasted (EchoPath holds the output down until the canceller reaches 15 dB ERLE; the
//   figures above are measured without it, in a second run, so that it does not flatter them).
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
/** the rooms: the direct path's delay and level, and the device's output latency in front of it */
const ROOMS = [
  { delayMs: 20, gainDb: -6 },
  { delayMs: 80, gainDb: -12 },
  { delayMs: 150, gainDb: -20 },
];
const OUTPUT_LATENCY_MS = 30;
const NOISE_DBFS = -65;
/** the near-end talker at the microphone: 10 dB below the agent's voice at the speaker (louder than some echoes) */
const NEAR_GAIN = 10 ** (-10 / 20);
const SINGLE_TALK_S = 9;

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

/** A synthetic room impulse response: the direct path, six early reflections, a decaying diffuse tail. */
function roomResponse({ delayMs, gainDb }, seed) {
  const rand = rng(seed);
  const g = 10 ** (gainDb / 20);
  const d = Math.round((delayMs / 1000) * RATE);
  const tail = Math.round(0.3 * RATE);
  const h = new Float64Array(d + tail);
  h[d] = g;
  for (let i = 0; i < 6; i++) h[d + Math.round((2 + rand() * 25) * 24)] += g * (rand() - 0.5) * 0.8;
  // RT60 300 ms: -60 dB over 0.3 s; the diffuse part starts 25 ms after the direct sound at -15 dB of it
  for (let i = Math.round(0.025 * RATE); i < tail; i++)
    h[d + i] += g * 0.18 * (rand() * 2 - 1) * 10 ** ((-3 * i) / (0.3 * RATE));
  return h;
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

/** One room: the signals through EchoPath, at simulated times. */
async function runRoom(room, far, near, seed, startupSuppressDb) {
  const { EchoPath } = await import('../dist/audio/echo-canceller.js');
  const len = Math.ceil(((SINGLE_TALK_S + near.length / RATE + 1) * RATE) / CHUNK) * CHUNK;
  const played = new Float64Array(len);
  played.set(far.subarray(0, Math.min(far.length, len - RATE)), Math.round(0.5 * RATE));
  const outLatency = Math.round((OUTPUT_LATENCY_MS / 1000) * RATE);
  const heard = new Float64Array(len);
  heard.set(played.subarray(0, len - outLatency), outLatency);
  const echo = convolve(heard, roomResponse(room, seed));
  const rand = rng(seed + 1);
  const noiseAmp = 10 ** (NOISE_DBFS / 20) * Math.sqrt(3);
  const noise = Float64Array.from({ length: len }, () => (rand() * 2 - 1) * noiseAmp);
  const nearAt = SINGLE_TALK_S * RATE;
  const nearClean = new Float64Array(len);
  nearClean.set(
    near.subarray(0, len - nearAt).map((v) => v * NEAR_GAIN),
    nearAt,
  );
  const mic = echo.map((v, i) => v + noise[i] + nearClean[i]);
  const path = await EchoPath.open({ sampleRate: RATE, startupSuppressDb });
  let learnt = -1;
  const out = new Float64Array(len);
  const micS16 = toS16(mic);
  const playedS16 = toS16(played);
  const t0 = 1000; // ms on the simulated clock
  const jitter = rng(seed + 2);
  const cpu = process.cpuUsage();
  for (let c = 0; c < len; c += CHUNK) {
    // the playback writes its chunk when it is due; a captured frame arrives 2-10 ms after its last sample
    path.played(Buffer.from(playedS16.buffer, c * 2, CHUNK * 2), t0 + (c / RATE) * 1000);
    const frame = Buffer.from(micS16.buffer, c * 2, CHUNK * 2);
    const cleaned = path.captured(frame, t0 + ((c + CHUNK) / RATE) * 1000 + 2 + jitter() * 8);
    const s = new Int16Array(cleaned.buffer, cleaned.byteOffset, CHUNK);
    for (let i = 0; i < CHUNK; i++) out[c + i] = s[i] / 32768;
    if (learnt < 0 && !path.learning) learnt = c + CHUNK;
  }
  const used = process.cpuUsage(cpu);
  const delayMs = path.echoDelayMs;
  // lined up with the input: the canceller's output lags by one block
  const lag = path.latencySamples;
  path.free();
  out.copyWithin(0, lag).fill(0, len - lag);
  return { mic, out, echo, noise, nearClean, nearAt, cpuMs: (used.user + used.system) / 1000, len, learnt, delayMs };
}

function figures(r) {
  const block = RATE / 50;
  const noiseE = energy(r.noise, 0, r.noise.length) / r.noise.length;
  const active = (a) => energy(r.echo, a, a + block) / block > noiseE * 10;
  // convergence: from the first echo until the ERLE over 500 ms (of echo 30 dB over the noise) first reaches 20 dB
  const firstEcho = r.echo.findIndex((v) => Math.abs(v) > 1e-4);
  const win = RATE / 2;
  let converged = r.nearAt;
  for (let a = firstEcho; a + win <= r.nearAt; a += block) {
    if (energy(r.echo, a, a + win) / win < noiseE * 1000) continue;
    if (db(energy(r.mic, a, a + win) / energy(r.out, a, a + win)) >= 20) {
      converged = a + win;
      break;
    }
  }
  let micE = 0;
  let outE = 0;
  for (let a = converged; a + block <= r.nearAt; a += block) {
    if (!active(a)) continue;
    micE += energy(r.mic, a, a + block);
    outE += energy(r.out, a, a + block);
  }
  // double talk: the blocks where the near end talks (its level 20 dB over the noise) while the agent's echo is there
  const ref = r.nearClean.map((v, i) => v + r.noise[i]);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  let blocks = 0;
  let mxy = 0;
  let myy = 0;
  for (let a = r.nearAt; a + block <= r.len; a += block) {
    if (energy(r.nearClean, a, a + block) / block < noiseE * 100 || !active(a)) continue;
    blocks++;
    for (let i = a; i < a + block; i++) {
      sxy += ref[i] * r.out[i];
      sxx += ref[i] * ref[i];
      syy += r.out[i] * r.out[i];
      mxy += ref[i] * r.mic[i];
      myy += r.mic[i] * r.mic[i];
    }
  }
  return {
    erle: db(micE / outE),
    echoOverNoise: db(energy(r.echo, firstEcho, r.nearAt) / (r.nearAt - firstEcho) / noiseE),
    convergenceS: (converged - firstEcho) / RATE,
    correlation: sxy / Math.sqrt(sxx * syy),
    micCorrelation: mxy / Math.sqrt(sxx * myy),
    nearLevelDb: db(syy / sxx),
    doubleTalkS: (blocks * block) / RATE,
  };
}

export default async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-echo-'));
  const rows = [];
  try {
    const far = await speak(FAR_TEXT, 'en-us', dir, 'far');
    const near = await speak(NEAR_TEXT, 'en+f3', dir, 'near');
    for (const [i, room] of ROOMS.entries()) {
      // the canceller's own figures: without the start-up hold (EchoPath's StartupGuard), which would flatter them
      const r = await runRoom(room, far, near, 7 + i, 0);
      const f = figures(r);
      const held = await runRoom(room, far, near, 7 + i, undefined);
      const firstEcho = held.echo.findIndex((v) => Math.abs(v) > 1e-4);
      const name = `${room.delayMs} ms ${room.gainDb} dB room:`;
      rows.push({ name: `${name} echo over the room noise`, value: f.echoOverNoise, unit: 'dB' });
      rows.push({
        name: `${name} estimated bulk delay (true: ${OUTPUT_LATENCY_MS + room.delayMs} ms)`,
        value: r.delayMs ?? Number.NaN,
        unit: 'ms',
      });
      rows.push({ name: `${name} ERLE after convergence`, value: f.erle, unit: 'dB', atLeast: 25 });
      rows.push({ name: `${name} convergence (to 20 dB ERLE over 0.5 s)`, value: f.convergenceS, unit: 's' });
      rows.push({
        name: `${name} double talk: corr. with near end (mic ${f.micCorrelation.toFixed(2)})`,
        value: f.correlation,
        atLeast: 0.9,
      });
      rows.push({ name: `${name} double talk: near-end level change`, value: f.nearLevelDb, unit: 'dB' });
      rows.push({
        name: `${name} start-up hold (output held down) lasted`,
        value: held.learnt < 0 ? Number.NaN : (held.learnt - firstEcho) / RATE,
        unit: 's',
      });
      const audioS = r.len / RATE;
      rows.push({
        name: `${name} CPU per second of audio`,
        value: r.cpuMs / audioS,
        unit: 'ms',
        ratio: r.cpuMs / 1000 / audioS,
        baseline: 'real time',
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
