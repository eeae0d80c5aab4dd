// Clips and checks shared by the realtime and calls tests: tone speech the emulator can "hear", and what its
// answers sound like.
import { readFileSync } from 'node:fs';
import { decodeAudio, encodeWav, mulawEncode } from 'svc-formats/audio-codecs';
import { decodeTones, encodeTones } from 'svc-emulator/tones';
import { realtimeLogs, type RealtimeSessionLog } from 'svc-emulator/realtime-log';
import { itWithEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { writeTemp } from '../../helpers/files.js';

export type Part = { say: string } | { silence: number };

/** PCM s16le mono at `rate`: spoken parts (tones) and silences (ms). */
export function clipPcm(parts: Part[], rate = 24000): Buffer {
  return Buffer.concat(
    parts.map((p) => ('say' in p ? encodeTones(p.say, rate) : Buffer.alloc(Math.round((rate * p.silence) / 1000) * 2))),
  );
}

export function wavClip(name: string, parts: Part[], rate = 24000): string {
  return writeTemp(name, encodeWav(clipPcm(parts, rate), { sampleRate: rate, channels: 1 }));
}

/** The spoken question the realtime tests ask ("what is the weather", with silence around it), as a WAV file. */
export function questionClip(): string {
  return wavClip('question.wav', [{ silence: 200 }, { say: 'what is the weather' }, { silence: 300 }]);
}

export function ulawClip(name: string, parts: Part[]): string {
  return writeTemp(name, mulawEncode(clipPcm(parts, 8000)));
}

/** The text spoken in an audio file (WAV, or raw in the hinted encoding). */
export async function spokenIn(
  path: string,
  hint: { encoding?: 'pcm' | 'mulaw'; sampleRate?: number } = {},
): Promise<string> {
  const { pcm, format } = await decodeAudio(readFileSync(path), hint);
  return decodeTones(pcm, format.sampleRate);
}

/** The emulator's answer audio for a text, as the emulator speaks it (fast voice). */
export function answerPcm(text: string, rate = 24000): Buffer {
  return encodeTones(text, rate, { speed: 1.5 });
}

/** The two channels of a stereo PCM s16le buffer (a --record file's data). */
export function stereoChannels(pcm: Buffer): [Buffer, Buffer] {
  const n = pcm.length / 4;
  const left = Buffer.alloc(n * 2);
  const right = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) {
    left.writeInt16LE(pcm.readInt16LE(i * 4), i * 2);
    right.writeInt16LE(pcm.readInt16LE(i * 4 + 2), i * 2);
  }
  return [left, right];
}

/** Where a channel sounds: [first, last] sample of each stretch of sound, stretches apart by `gapMs` of silence. */
export function soundSpans(ch: Buffer, gapMs = 500, rate = 24000): [number, number][] {
  const gap = (gapMs * rate) / 1000;
  const spans: [number, number][] = [];
  for (let i = 0; i < ch.length / 2; i++) {
    if (ch.readInt16LE(i * 2) === 0) continue;
    const last = spans.at(-1);
    if (last && i - last[1] <= gap) last[1] = i;
    else spans.push([i, i]);
  }
  return spans;
}

/** The emulator's log of the newest realtime session. */
export function lastSession(emu: TestEmulator): RealtimeSessionLog {
  const all = realtimeLogs(emu.core);
  if (!all.length) throw new Error('no realtime session was opened');
  return all[all.length - 1]!;
}

/** Quick answers for tests that do not look at timing. */
export function fastEmulator(emu: TestEmulator): void {
  Object.assign(emu.core.settings, {
    realtimePace: 0,
    realtimeResponseDelayMs: 0,
    realtimeLegacyEvents: 0,
    realtimeCallerPauseMs: 0,
  });
}

/** Answers paced at real time, as the service does. */
export function realTimeEmulator(emu: TestEmulator): void {
  Object.assign(emu.core.settings, { realtimePace: 1, realtimeResponseDelayMs: 150, realtimeLegacyEvents: 0 });
}

/**
 * `it` for tests that talk (a clip played at real time: seconds spent waiting), each with an emulator of its own that
 * answers at once (itWithEmulator: test/helpers/emulator.ts), so that they can run at once.
 */
export const talking = itWithEmulator(fastEmulator);
