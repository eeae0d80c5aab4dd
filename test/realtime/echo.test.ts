// How `--aec` is wired between the local audio and the session (src/realtime/echo.ts): when it is on, and the two
// wrapped ends: the sink tells the canceller what it plays and when it stops, the source's frames come out
// cleaned, and the canceller is freed when the frames end. The echo itself is test/audio/echo-canceller.test.ts
// (the canceller) and test/commands/realtime/talk-echo.test.ts (end to end).
import { describe, expect, it } from 'vitest';
import { EchoPath } from '../../src/audio/echo-canceller.js';
import type { AudioSink } from '../../src/audio/sink.js';
import type { AudioSource } from '../../src/audio/source.js';
import { cancelledSource, echoCancelWanted, referenceSink } from '../../src/realtime/echo.js';

const RATE = 24000;

describe('echoCancelWanted', () => {
  it('is on in full duplex with the microphone and the speaker, unless --no-aec; --aec turns it on elsewhere', () => {
    const local = { input: 'mic', output: 'speaker' };
    expect(echoCancelWanted({ ...local, duplex: true })).toBe(true);
    expect(echoCancelWanted({ ...local, duplex: true, aec: false })).toBe(false);
    expect(echoCancelWanted({ ...local })).toBe(false); // half-duplex: the microphone is muted while it plays
    expect(echoCancelWanted({ ...local, aec: true })).toBe(true);
    // no echo to cancel without both: a file in or out (checkVoiceFlags refuses an explicit --aec there)
    expect(echoCancelWanted({ input: 'q.wav', output: 'speaker', duplex: true })).toBe(false);
    expect(echoCancelWanted({ input: 'mic', output: 'a.wav', duplex: true })).toBe(false);
  });
});

/** A source of `frames` (a tone: what the microphone hears of the speaker) and a sink that records its calls. */
function ends(frames: Buffer[]) {
  let closed = false;
  const source: AudioSource = {
    kind: 'mic',
    format: { sampleRate: RATE, channels: 1 },
    inputFormat: { sampleRate: RATE, channels: 1 },
    muted: false,
    setMuted() {},
    async *frames() {
      for (const f of frames) yield f;
    },
    async close() {
      closed = true;
    },
  };
  const calls: string[] = [];
  const sink: AudioSink = {
    kind: 'speaker',
    format: { sampleRate: RATE, channels: 1 },
    codec: 'pcm',
    async write(pcm) {
      calls.push(`write ${pcm.length}`);
    },
    clear: () => calls.push('clear'),
    async end() {
      calls.push('end');
    },
    async abort() {
      calls.push('abort');
    },
  };
  return { source, sink, calls, closed: () => closed };
}

const tone = (n: number) =>
  Buffer.from(
    Int16Array.from({ length: n }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / RATE))).buffer,
  );

describe('the wrapped ends', () => {
  it('the sink hands everything on and tells the canceller; the source yields what the canceller returns', async () => {
    const frames = Array.from({ length: 50 }, () => tone(960));
    const e = ends(frames);
    const path = await EchoPath.open({ sampleRate: RATE });
    const told: string[] = [];
    const spy = Object.assign(Object.create(path), {
      played: (pcm: Buffer) => told.push(`played ${pcm.length}`),
      cleared: () => told.push('cleared'),
    }) as EchoPath;
    const sink = referenceSink(e.sink, spy);
    expect([sink.kind, sink.codec]).toEqual(['speaker', 'pcm']);
    await sink.write(tone(960));
    sink.clear();
    await sink.end();
    expect(e.calls).toEqual(['write 1920', 'clear', 'end']);
    expect(told).toEqual(['played 1920', 'cleared']);

    // every captured frame goes through the canceller, what it returns is what the session gets; freed at the end
    const cleaned: Buffer[] = [];
    let freed = 0;
    const through = Object.assign(Object.create(path), {
      captured: (f: Buffer) => {
        cleaned.push(Buffer.alloc(f.length, cleaned.length));
        return cleaned.at(-1);
      },
      free: () => freed++,
    }) as EchoPath;
    const out: Buffer[] = [];
    for await (const f of cancelledSource(e.source, through).frames(40)) out.push(f);
    expect(out).toEqual(cleaned);
    expect(out).toHaveLength(frames.length);
    expect(freed).toBe(1);
    path.free();
  });

  it('a source closed before it was read frees the canceller and closes the microphone', async () => {
    const e = ends([]);
    const path = await EchoPath.open({ sampleRate: RATE });
    await cancelledSource(e.source, path).close();
    expect(e.closed()).toBe(true);
    expect(() => path.captured(tone(960))).toThrow(/freed/);
  });
});
