// svc realtime talk --record FILE: both sides in one stereo WAV (you left, the assistant right) on one time line, and
// the file written atomically (an existing file is replaced only by a complete recording, kept when the session fails).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { decodeAudio } from 'svc-formats/audio-codecs';
import { decodeTones } from 'svc-emulator/tones';
import { itWithEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcProcess } from '../../helpers/subprocess.js';
import { tempDir } from '../../helpers/files.js';
import { answerPcm, fastEmulator, lastSession, soundSpans, stereoChannels, talking, wavClip } from './talk-helpers.js';

const withDelay = itWithEmulator((emu: TestEmulator) => {
  fastEmulator(emu);
  emu.core.settings.realtimeResponseDelayMs = 300;
});

// No retry: the recording places the input from the earliest fit of its frames and an answer's audio by its stream
// (test/realtime/recording.test.ts), so a frame or a chunk held up on a busy machine moves nothing.
describe.concurrent('svc realtime talk --record', () => {
  withDelay(
    'records you on the left and the answer on the right, time-aligned with the turn latency measured',
    async ({ emu }) => {
      const dir = tempDir();
      const rec = join(dir, 'conversation.wav');
      const log = join(dir, 'latency.jsonl');
      writeFileSync(rec, 'an older recording');
      const input = wavClip('rec.wav', [{ silence: 300 }, { say: 'record this please' }, { silence: 900 }]);
      // a process of its own, so that the emulator's work does not hold up the client's clock (talk-latency.test.ts)
      const r = await svcProcess(
        ['realtime', 'talk', '--input', input, '--output', join(dir, 'a.wav'), '--record', rec, '--force'].concat([
          '--latency-log',
          log,
        ]),
        { emu, timeout: 40_000 },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      const { pcm, format } = await decodeAudio(readFileSync(rec));
      expect(format).toMatchObject({ sampleRate: 24000, channels: 2 });
      const [left, right] = stereoChannels(pcm);
      const answer = lastSession(emu).responses[0]!.transcript;
      expect(decodeTones(left, 24000)).toBe('record this please');
      expect(decodeTones(right, 24000)).toBe('You said: record this please. ' + answer.split('. ').slice(1).join('. '));
      // the answer as the emulator spoke it, sample for sample, from its first sound on
      const spoken = answerPcm(answer);
      const onset = soundSpans(right)[0]![0];
      expect(
        right.subarray(onset * 2, onset * 2 + spoken.length).equals(spoken.subarray(soundSpans(spoken)[0]![0] * 2)),
      ).toBe(true);
      // time-aligned: from the end of your speech (left) to the answer's first sound (right) is the turn's measured
      // latency to its first audio, within a 40 ms frame (a frame is placed by the time it was captured) and the
      // emulator VAD's 20 ms step
      const [turn] = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const gapMs = ((onset - soundSpans(left).at(-1)![1]) * 1000) / 24000;
      expect(
        Math.abs(gapMs - turn.speech_end_to_first_audio_ms),
        `gap ${gapMs}, turn ${JSON.stringify(turn)}`,
      ).toBeLessThanOrEqual(60);
      // nothing left beside it
      expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
    },
  );

  talking('a session that fails leaves an existing --record file as it was, and no temp file', async ({ emu }) => {
    const dir = tempDir();
    const rec = join(dir, 'conversation.wav');
    writeFileSync(rec, 'an older recording');
    const r = await svcInProcess(
      ['realtime', 'talk', '--input', wavClip('q.wav', [{ silence: 600 }]), '--output', join(dir, 'a.wav')].concat([
        '--record',
        rec,
        '--force',
      ]),
      { emu },
    );
    expect(r.exitCode, String(r.stderr)).toBe(1);
    expect(readFileSync(rec, 'utf8')).toBe('an older recording');
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  talking('--record names a .wav file: another audio extension is refused before anything is sent', async ({ emu }) => {
    const dir = tempDir();
    const r = await svcInProcess(
      ['realtime', 'talk', '--input', wavClip('q.wav', [{ silence: 100 }]), '--record', join(dir, 'rec.mp3')],
      { emu },
    );
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toMatch(/--record.*rec\.mp3.*\.wav/);
    expect(emu.requests()).toHaveLength(0);
  });
});
