// --record's placement (src/realtime/recording.ts) through the session's Playback, to a real file: an answer's audio
// is one stream, so a chunk of it that came late (a busy process, a slow socket) follows the one before it; a new
// answer starts where it came. End to end: test/commands/realtime/talk-record.test.ts and talk-turns.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeAudio } from 'svc-formats/audio-codecs';
import { decodeTones, encodeTones } from 'svc-emulator/tones';
import { Playback } from '../../src/realtime/playback.js';
import { ConversationRecording } from '../../src/realtime/recording.js';
import { tempDir } from '../helpers/files.js';
import { soundSpans, stereoChannels } from '../commands/realtime/talk-helpers.js';

const RATE = 24000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function recorded(path: string): Promise<Buffer> {
  const { pcm, format } = await decodeAudio(readFileSync(path));
  expect(format).toMatchObject({ sampleRate: RATE, channels: 2 });
  return stereoChannels(pcm)[1];
}

describe('ConversationRecording', () => {
  it("places an answer's chunks by its stream: one that came 300 ms late follows the one before it", async () => {
    const path = join(tempDir(), 'rec.wav');
    const rec = await ConversationRecording.create(path, RATE, false);
    const playback = new Playback(undefined, 'pcm', RATE);
    playback.listeners.push(rec);
    rec.configured();
    const first = encodeTones('the emulator', RATE, { speed: 1.5 });
    const second = encodeTones('said this', RATE, { speed: 1.5 });
    // 100 ms chunks, as the emulator sends them; the fourth comes 300 ms after it was due (the event loop was busy)
    const chunks = (pcm: Buffer) =>
      Array.from({ length: Math.ceil(pcm.length / 4800) }, (_, i) => pcm.subarray(i * 4800, (i + 1) * 4800));
    for (const [i, chunk] of chunks(first).entries()) {
      playback.write(chunk, undefined, undefined, 'item_1');
      await sleep(i === 3 ? 400 : 100);
    }
    await sleep(800);
    // the next answer is another stream: it starts when it came, after a silence
    for (const chunk of chunks(second)) {
      playback.write(chunk, undefined, undefined, 'item_2');
      await sleep(100);
    }
    await rec.end();
    const right = await recorded(path);
    const spans = soundSpans(right, 250);
    expect(spans).toHaveLength(2);
    // the first answer whole, sample for sample, with no gap where the late chunk came
    const onset = spans[0]![0];
    const spoken = first.subarray(soundSpans(first)[0]![0] * 2);
    expect(right.subarray(onset * 2, onset * 2 + spoken.length).equals(spoken)).toBe(true);
    expect(decodeTones(right.subarray(0, spans[1]![0] * 2), RATE)).toBe('the emulator');
    expect(decodeTones(right.subarray(spans[1]![0] * 2), RATE)).toBe('said this');
  });

  it('a barge-in cuts the answer where it was stopped; its stream does not continue past the cut', async () => {
    const path = join(tempDir(), 'rec.wav');
    const rec = await ConversationRecording.create(path, RATE, false);
    const playback = new Playback(undefined, 'pcm', RATE);
    playback.listeners.push(rec);
    const answer = encodeTones('a long answer that goes on', RATE, { speed: 1.5 });
    const next = encodeTones('yes', RATE, { speed: 1.5 });
    // the stop and the next answer are read off the clock as they happen: a busy machine sleeps longer than asked
    const start = performance.now();
    rec.configured();
    // queued all at once (a server ahead of real time), stopped ~500 ms in
    playback.write(answer, undefined, undefined, 'item_1');
    await sleep(500);
    const stoppedAt = (performance.now() - start) / 1000;
    playback.clear();
    await sleep(300);
    const nextAt = (performance.now() - start) / 1000;
    playback.write(next, undefined, undefined, 'item_1');
    await rec.end();
    const right = await recorded(path);
    const [cut, after] = soundSpans(right, 100);
    // what was heard of the first answer ends within a few ms of the stop; what came afterwards starts when it came
    expect(cut![1]).toBeLessThanOrEqual((stoppedAt + 0.05) * RATE);
    expect(after![0]).toBeGreaterThanOrEqual((nextAt - 0.05) * RATE);
    expect(after![0]).toBeGreaterThan(cut![1] + 0.2 * RATE);
  });

  it('places the input from the earliest fit of its frames: a first frame held up does not put all late', async () => {
    const path = join(tempDir(), 'rec.wav');
    const rec = await ConversationRecording.create(path, RATE, false);
    rec.configured();
    const t0 = performance.now();
    // 40 ms frames: 400 ms of sound then silence; the first frame comes 200 ms late (the process busy), the next
    // ones at once after it (the pacer catching up), then each on time
    const sound = Buffer.alloc(960 * 2, 0x10);
    for (let k = 0; k < 25; k++) {
      const due = t0 + 40 * (k + 1);
      rec.captured(k < 10 ? sound : Buffer.alloc(960 * 2), Math.max(due, t0 + 240 + k));
    }
    // the answer's first audio 200 ms after the input's sound ended (400 ms in)
    rec.queued(encodeTones('yes', RATE, { speed: 1.5 }), t0 + 600, 'item_1');
    await rec.end();
    const { pcm } = await decodeAudio(readFileSync(path));
    const [left, right] = stereoChannels(pcm);
    const [said] = soundSpans(left);
    expect(said).toEqual([0, 10 * 960 - 1]);
    // the answer's onset (its first sound, a few samples into its audio) 200 ms after the input's end
    const lead = soundSpans(encodeTones('yes', RATE, { speed: 1.5 }))[0]![0];
    expect(soundSpans(right)[0]![0] - lead - (said![1] + 1)).toBe(0.2 * RATE);
  });
});
