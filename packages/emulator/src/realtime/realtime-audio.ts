// Audio of the emulated realtime sessions: wire formats (pcm16 at a rate, G.711 mu-law / A-law at 8 kHz),
// and the tone code of packages/emulator/src/voice/tones.ts to "hear" the user and to "speak" the answer.
import { bufferOf, decodeSamples, encodeSamples, resample, samplesOf } from 'svc-formats/audio-codecs';
import { SAMPLE_RATES } from 'svc-formats/audio-format';
import * as tones from '../voice/tones.js';

export type WireFormat = { type: 'audio/pcm'; rate: number } | { type: 'audio/pcmu' } | { type: 'audio/pcma' };

/** A format object (or a legacy string: pcm16, g711_ulaw, g711_alaw) → the canonical form, or undefined. */
export function normalizeWireFormat(f: unknown): WireFormat | undefined {
  if (typeof f === 'string') {
    if (f === 'pcm16' || f === 'audio/pcm') return { type: 'audio/pcm', rate: 24000 };
    if (f === 'g711_ulaw' || f === 'audio/pcmu') return { type: 'audio/pcmu' };
    if (f === 'g711_alaw' || f === 'audio/pcma') return { type: 'audio/pcma' };
    return undefined;
  }
  if (!f || typeof f !== 'object') return undefined;
  const o = f as { type?: unknown; rate?: unknown };
  if (o.type === 'audio/pcm') {
    const rate = o.rate === undefined ? 24000 : o.rate;
    if (typeof rate !== 'number' || !(SAMPLE_RATES as readonly number[]).includes(rate)) return undefined;
    return { type: 'audio/pcm', rate };
  }
  if (o.type === 'audio/pcmu') return { type: 'audio/pcmu' };
  if (o.type === 'audio/pcma') return { type: 'audio/pcma' };
  return undefined;
}

export function formatRate(f: WireFormat): number {
  return f.type === 'audio/pcm' ? f.rate : 8000;
}

export function decodeWire(bytes: Buffer, f: WireFormat): Int16Array {
  const pcm = f.type === 'audio/pcm' ? bytes : decodeSamples(bytes, f.type === 'audio/pcmu' ? 'mulaw' : 'alaw');
  return Int16Array.from(samplesOf(pcm));
}

export function encodeWire(pcm: Int16Array, f: WireFormat): Buffer {
  const bytes = bufferOf(pcm);
  return f.type === 'audio/pcm' ? Buffer.from(bytes) : encodeSamples(bytes, f.type === 'audio/pcmu' ? 'mulaw' : 'alaw');
}

/** What the emulator "hears" in a turn of user audio: the tone-coded text, else a generic transcript. */
export function hear(pcm: Int16Array, rate: number): string {
  const text = tones.decodeTones(bufferOf(pcm), { sampleRate: rate, channels: 1 });
  if (text?.trim()) return text.trim();
  const secs = pcm.length / rate;
  return `(unrecognized speech, ${secs.toFixed(1)} seconds)`;
}

/** The spoken form of a text: tones at `rate`, mono pcm16. */
export function speak(text: string, rate: number, speed = 1): Int16Array {
  const pcm = tones.encodeTones(text, { sampleRate: rate, channels: 1 }, { speed });
  return Int16Array.from(samplesOf(pcm));
}

export { resample };
