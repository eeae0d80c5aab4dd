// The emulator flooded (issue 26): oversized WebSocket messages on every route, at once and in fragments; 240 MiB
// of audio in a streaming STT session and in a realtime session; a long REST TTS in MP3. Each costs the emulator
// seconds of CPU, so this file runs in the full run only (CI, SVC_TEST_FULL=1: vitest.config.ts); hostile.test.ts
// keeps one 17 MiB message and a long REST TTS in mu-law in every run. The emulator runs as its own process
// (hostile-process.ts): "still up" means the process answers, and its memory is read from /proc.
import { describe, expect, it } from 'vitest';
import { closed, EmulatorProcess, frame, MiB, MiB_PCM, ROUTES, sent, until } from './hostile-process.js';

const emu = EmulatorProcess.forThisFile();

const FLOODS: { kind: string; frames: () => Buffer[]; code: number }[] = [
  { kind: 'one 17 MiB message', frames: () => [frame(0x2, Buffer.alloc(17 * MiB))], code: 1009 },
  {
    kind: 'a message of 17 fragments of 1 MiB',
    frames: () => [
      frame(0x1, Buffer.alloc(MiB, 0x20), { fin: false }),
      ...Array.from({ length: 16 }, (_, i) => frame(0x0, Buffer.alloc(MiB, 0x20), { fin: i === 15 })),
    ],
    code: 1009,
  },
];

describe('oversized WebSocket messages close that one socket with 1009; the emulator keeps serving', () => {
  for (const route of ROUTES) {
    for (const m of FLOODS) {
      it(`${route.split('?')[0]}: ${m.kind} → ${m.code}`, async () => {
        const { code } = await emu.attack(route, m.frames());
        expect(code).toBe(m.code);
        await emu.upAndBounded();
      });
    }
  }
});

describe('limits on streamed and realtime audio', () => {
  it('a 240 MiB streaming STT session holds a bounded amount of audio and releases it on close', async () => {
    const before = emu.rssBytes();
    const { ws, events } = await emu.client('/v1/stt?sample_rate=16000&encoding=pcm');
    await until(events, (e) => e.type === 'transcript.created');
    for (let i = 0; i < 240; i++) await sent(ws, MiB_PCM);
    await sent(ws, JSON.stringify({ type: 'audio.done' }));
    await until(events, (e) => e.type === 'transcript.done');
    await closed(ws);
    await emu.upAndBounded(96, before);
  });

  it('a 240 MiB realtime session holds a bounded amount of audio; a manual buffer past 120 s is refused', async () => {
    const before = emu.rssBytes();
    const { ws, events } = await emu.client('/v1/realtime');
    await until(events, (e) => e.type === 'session.created');
    const append = JSON.stringify({ type: 'input_audio_buffer.append', audio: MiB_PCM.toString('base64') });
    for (let i = 0; i < 240; i++) await sent(ws, append);
    await sent(ws, JSON.stringify({ type: 'session.update', session: { turn_detection: null } }));
    for (let i = 0; i < 8; i++) await sent(ws, append);
    const refused = await until(events, (e) => e.type === 'error');
    expect(refused.error).toMatchObject({ code: 'input_audio_buffer_too_large' });
    await closed(ws);
    await emu.upAndBounded(96, before);
  });
});

describe('no request holds the event loop', () => {
  it('REST TTS of 5000 characters (mp3): the server answers while it works', () =>
    emu.answersDuringLongTts('mp3', 1000, 256));
});
