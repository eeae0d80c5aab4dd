// The latencies svc realtime talk measures per turn (--json events `svc.turn.latency`, --latency-log FILE), checked
// against an emulator whose delays are known: it answers `realtimeResponseDelayMs` after the turn ended, and its
// VAD ends a turn after `silence_duration_ms` of silence on the audio's own clock. The input is a file paced at
// real time in 40 ms frames; svc runs as a process. Each figure is checked, to within 10 ms, against what the
// emulator logged of the same moments (when each frame arrived, when the turn ended, when the first audio went
// out), and against the known delay it cannot be shorter than.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { itWithEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcProcess } from '../../helpers/subprocess.js';
import { tempDir } from '../../helpers/files.js';
import { lastSession, wavClip } from './talk-helpers.js';

const RESPONSE_DELAY_MS = 300;
const SILENCE_MS = 200;
const FRAME_MS = 40;

function knownDelays(emu: TestEmulator): void {
  Object.assign(emu.core.settings, {
    realtimePace: 1,
    realtimeResponseDelayMs: RESPONSE_DELAY_MS,
    realtimeLegacyEvents: 0,
  });
}
const withDelays = itWithEmulator(knownDelays);

const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

// One at a time: the emulator runs in this process, and another session run in-process beside it delays when the
// emulator takes in the frames it logs (seen: 25 ms under a load average of 28 on 2 cores)
describe('svc realtime talk: latency per turn', () => {
  withDelays(
    '--json: one svc.turn.latency event per turn, its figures those of the emulator (±10 ms); --latency-log the same',
    async ({ emu }) => {
      const input = wavClip('two-turns.wav', [
        { silence: 200 },
        { say: 'first question' },
        // the answer is heard in full before the second question (half-duplex drops what comes meanwhile)
        { silence: 6000 },
        { say: 'second one' },
        { silence: 600 },
      ]);
      const dir = tempDir();
      const log = join(dir, 'latency.jsonl');
      // a process of its own: in-process, the emulator's work (hearing a turn: tens of ms of CPU) would hold up the
      // client's event loop, and its figures with it
      const r = await svcProcess(
        [
          'realtime',
          'talk',
          '--input',
          input,
          '--output',
          join(dir, 'answer.wav'),
          '--vad-silence-ms',
          String(SILENCE_MS),
          '--json',
          '--latency-log',
          log,
        ],
        { emu, timeout: 40_000 },
      );
      expect(r.exitCode, String(r.stderr)).toBe(0);
      const events = jsonLines(r.stdout);
      const turns = events.filter((e) => e.type === 'svc.turn.latency');
      const stops = events.filter((e) => e.type === 'input_audio_buffer.speech_stopped');
      expect(lastSession(emu).transcripts).toEqual(['first question', 'second one']);
      expect(turns.map((t) => t.turn)).toEqual([1, 2]);
      const { appends, responses } = lastSession(emu);
      turns.forEach((t, i) => {
        const end = stops[i].audio_end_ms as number;
        // the end of speech is `silence` before `end` on the audio clock (40 ms a frame, every frame logged on
        // arrival): from the arrival of the frame holding the end of speech, less what of that frame came after it,
        // to the arrival of the frame holding `end`, when the server stopped the turn
        const speechEnd = end - SILENCE_MS;
        const k = Math.ceil(speechEnd / FRAME_MS) - 1;
        const j = Math.ceil(end / FRAME_MS) - 1;
        const vad = appends[j]! - appends[k]! + ((k + 1) * FRAME_MS - speechEnd);
        const response = responses[i]!.audio_start! - responses[i]!.turn_ended_at!;
        // (not checked against SILENCE_MS itself: a frame sent late by a busy loop shortens the wait after it)
        expect(response).toBeGreaterThanOrEqual(RESPONSE_DELAY_MS);
        expect(t, JSON.stringify(t)).toMatchObject({
          speech_end: 'server_vad',
          response_id: responses[i]!.response_id,
          server: { audio_end_ms: end, silence_duration_ms: SILENCE_MS, audio_start_ms: expect.any(Number) },
        });
        expect(Math.abs(t.vad_ms - vad), `vad_ms ${t.vad_ms}, expected ${vad}`).toBeLessThanOrEqual(10);
        expect(
          Math.abs(t.response_ms - response),
          `response_ms ${t.response_ms}, expected ${response}`,
        ).toBeLessThanOrEqual(10);
        // the whole is its parts (rounded to 0.1 ms each)
        expect(Math.abs(t.speech_end_to_first_audio_ms - (t.vad_ms + t.response_ms))).toBeLessThanOrEqual(0.2);
        expect(t.first_audio_to_device_ms).toBeGreaterThanOrEqual(0);
        expect(t.capture_to_socket_ms).toBeGreaterThanOrEqual(0);
        expect(t.client_added_ms).toBeCloseTo(t.capture_to_socket_ms + t.first_audio_to_device_ms, 0);
      });
      // each event comes after the first audio delta of its answer and before that answer's response.done
      const firstDelta = events.findIndex((e) => e.type === 'response.output_audio.delta');
      const firstDone = events.findIndex((e) => e.type === 'response.done');
      const firstTurn = events.findIndex((e) => e.type === 'svc.turn.latency');
      expect(firstTurn).toBeGreaterThan(firstDelta);
      expect(firstTurn).toBeLessThan(firstDone);
      // the log holds the same figures, one JSON line per turn
      expect(jsonLines(readFileSync(log, 'utf8'))).toEqual(turns);
    },
  );

  withDelays('a session that fails leaves an existing --latency-log file as it was', async ({ emu }) => {
    const dir = tempDir();
    const log = join(dir, 'latency.jsonl');
    writeFileSync(log, 'kept\n');
    // silence only: the server says nothing, the session ends with "no answer" (exit 1)
    const r = await svcInProcess(
      ['realtime', 'talk', '--input', wavClip('q.wav', [{ silence: 600 }]), '--output', join(dir, 'a.wav')].concat([
        '--latency-log',
        log,
      ]),
      { emu },
    );
    expect(r.exitCode, String(r.stderr)).toBe(1);
    expect(String(r.stderr)).toContain('no answer');
    expect(readFileSync(log, 'utf8')).toBe('kept\n');
  });
});
