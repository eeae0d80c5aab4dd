// Speech and a room for the echo tests: espeak-ng's voices at 24 kHz, and what a microphone hears of a playback
// through a synthetic room (a direct path after a delay, early reflections, a decaying diffuse tail) with noise.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PcmConverter, decodeAudio } from 'svc-formats/audio-codecs';
import { Fft } from '../../src/audio/delay-estimator.js';
import { tempDir } from '../helpers/files.js';

export const RATE = 24000;
export const AGENT_TEXT =
  'Hello, I am the assistant. Today the weather in Paris is sunny with a light breeze, and tomorrow it will ' +
  'rain in the afternoon. Would you like me to book a table for dinner, or shall I read you the news of the day?';
export const USER_TEXT =
  'Wait, stop please. I would rather hear about the trains to Lyon tomorrow morning, and then home.';

const spoken = new Map<string, Promise<Float64Array>>();

/** `text` spoken by espeak-ng's `voice`, 24 kHz mono, full scale 1 */
export function speech(text: string, voice = 'en-us'): Promise<Float64Array> {
  const key = `${voice}\n${text}`;
  let p = spoken.get(key);
  if (!p) {
    p = (async () => {
      const wav = join(tempDir('svc-speech-'), 'speech.wav');
      execFileSync('espeak-ng', ['-v', voice, '-s', '160', '-w', wav, text]);
      const { pcm, format } = await decodeAudio(readFileSync(wav));
      const out = new PcmConverter(format, { sampleRate: RATE, channels: 1 }).push(pcm);
      return Float64Array.from(new Int16Array(out.buffer, out.byteOffset, out.length >> 1), (v) => v / 32768);
    })();
    spoken.set(key, p);
  }
  return p;
}

/** a repeatable uniform generator in [0, 1) */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 4294967296;
  };
}

export interface Room {
  /** from the playback to the direct sound at the microphone */
  delayMs: number;
  gainDb: number;
  /** white noise, dBFS (default -65) */
  noiseDb?: number;
  /** a dense diffuse tail instead of the 40 reflections: from 25 ms after the direct sound, -60 dB over this (s) */
  rt60?: number;
}

/**
 * What the microphone hears of `played`: the direct path `delayMs` later at `gainDb`, six reflections within 30 ms
 * after it, 40 diffuse ones over the next 200 ms decaying by 60 dB in 300 ms, and the room's noise.
 */
export function hear(played: Float64Array, room: Room, seed = 1): Float64Array {
  const rand = seeded(seed);
  const g = 10 ** (room.gainDb / 20);
  const d = Math.round((room.delayMs * RATE) / 1000);
  const taps: [number, number][] = [[d, g]];
  for (let i = 0; i < 6; i++) taps.push([d + Math.round((0.002 + rand() * 0.028) * RATE), g * (rand() - 0.5) * 0.6]);
  for (let i = 0; i < (room.rt60 ? 0 : 40); i++) {
    const t = 0.03 + rand() * 0.2;
    taps.push([d + Math.round(t * RATE), g * 0.15 * (rand() * 2 - 1) * 10 ** (-3 * (t / 0.3))]);
  }
  const noise = 10 ** ((room.noiseDb ?? -65) / 20) * Math.sqrt(3);
  const out = Float64Array.from(played, () => (rand() * 2 - 1) * noise);
  for (const [at, gain] of taps) for (let i = at; i < out.length; i++) out[i]! += played[i - at]! * gain;
  if (room.rt60) addTail(out, played, d + Math.round(0.025 * RATE), g, room.rt60, rand);
  return out;
}

/** `played` through a diffuse tail from `from` samples on (-15 dB of the direct sound, -60 dB over rt60), added */
function addTail(out: Float64Array, played: Float64Array, from: number, g: number, rt60: number, rand: () => number) {
  const taps = Math.round(rt60 * RATE);
  let size = 1;
  while (size < played.length + from + taps) size <<= 1;
  const [xRe, xIm, hRe, hIm] = [
    new Float64Array(size),
    new Float64Array(size),
    new Float64Array(size),
    new Float64Array(size),
  ];
  xRe.set(played);
  for (let i = 0; i < taps; i++) hRe[from + i] = g * 0.18 * (rand() * 2 - 1) * 10 ** ((-3 * i) / taps);
  // the convolution as a product of spectra (a 0.6 s tail, sample by sample, is ~3·10⁹ multiplications)
  const fft = new Fft(size);
  fft.transform(xRe, xIm);
  fft.transform(hRe, hIm);
  for (let i = 0; i < size; i++) {
    const re = xRe[i]! * hRe[i]! - xIm[i]! * hIm[i]!;
    xIm[i] = xRe[i]! * hIm[i]! + xIm[i]! * hRe[i]!;
    xRe[i] = re;
  }
  fft.transform(xRe, xIm, true);
  for (let i = 0; i < out.length; i++) out[i]! += xRe[i]! / size;
}

export function s16(x: Float64Array): Int16Array {
  return Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32768))));
}

/** `x` after `lead` seconds of silence, then silence to `seconds` in all */
export function placed(x: Float64Array, lead: number, seconds: number): Float64Array {
  const out = new Float64Array(Math.round(seconds * RATE));
  out.set(x.subarray(0, out.length - Math.round(lead * RATE)), Math.round(lead * RATE));
  return out;
}

/** `x` as played by a device whose clock runs `ppm` fast: sample c is x at c·(1 + ppm/1e6) (a windowed sinc) */
export function drifted(x: Float64Array, ppm: number): Float64Array {
  const r = 1 + ppm / 1e6;
  const half = 16;
  return Float64Array.from(x, (_, c) => {
    const p = c * r;
    const i = Math.floor(p);
    let v = 0;
    for (let k = -half + 1; k <= half; k++) {
      const t = k - (p - i);
      const w = 0.5 + 0.5 * Math.cos((Math.PI * t) / half);
      v += (x[i + k] ?? 0) * (t === 0 ? 1 : Math.sin(Math.PI * t) / (Math.PI * t)) * w;
    }
    return v;
  });
}
