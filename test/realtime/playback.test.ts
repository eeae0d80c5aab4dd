// Playback's bound on what waits for the sink (src/realtime/playback.ts): a session awaits room() after each audio
// delta, so a sink that is behind stops the reading of events, and the socket then pushes back on the server
// (end to end: test/commands/realtime/talk-memory.test.ts).
import { describe, expect, it } from 'vitest';
import type { AudioSink } from '../../src/audio/sink.js';
import { Playback } from '../../src/realtime/playback.js';

const MIB = 1024 * 1024;

/** A sink whose writes wait until `take()` lets the oldest one through. */
function heldSink(kind: AudioSink['kind']) {
  const waiting: (() => void)[] = [];
  const sink: AudioSink = {
    kind,
    format: { sampleRate: 24000, channels: 1 },
    codec: 'pcm',
    write: () => new Promise<void>((resolve) => waiting.push(resolve)),
    clear() {},
    async end() {},
    async abort() {},
  };
  // writes are handed on one at a time: the next reaches the sink once the one before it resolved
  const take = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await new Promise((r) => setImmediate(r));
      waiting.shift()!();
    }
    await new Promise((r) => setImmediate(r));
  };
  return { sink, take };
}

describe('Playback.room', () => {
  it('a file: none needed up to 4 MiB queued; past it, a wait until half of it was written', async () => {
    const { sink, take } = heldSink('file');
    const playback = new Playback(sink, 'pcm', 24000);
    for (let i = 0; i < 4; i++) playback.write(Buffer.alloc(MIB));
    expect(playback.room()).toBeUndefined();
    playback.write(Buffer.alloc(MIB));
    let resumed = false;
    void playback.room()!.then(() => (resumed = true));
    await take(2); // 3 MiB still queued
    expect(resumed).toBe(false);
    await take(1); // 2 MiB: half the bound
    expect(resumed).toBe(true);
    expect(playback.room()).toBeUndefined();
  });

  it('a speaker: minutes of audio may wait (a barge-in behind a burst is read soon); release() ends it', async () => {
    const { sink } = heldSink('speaker');
    const playback = new Playback(sink, 'pcm', 24000);
    // 5 minutes of 24 kHz PCM
    for (let i = 0; i < 14; i++) playback.write(Buffer.alloc(MIB));
    expect(playback.room()).toBeUndefined();
    // past 10 minutes the session waits, until the session ends
    for (let i = 0; i < 15; i++) playback.write(Buffer.alloc(MIB));
    const wait = playback.room();
    expect(wait).toBeInstanceOf(Promise);
    playback.release();
    await wait;
  });
});
