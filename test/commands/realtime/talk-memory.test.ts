// `svc realtime talk` runs for hours: its memory must not grow with the audio. The CLI runs with its heap capped at
// 40 MB; the emulator answers without real-time pacing and says each answer many times over (realtimeAnswerRepeat),
// so that one spoken question brings back about an hour of audio (~4.5 times the heap) in seconds, faster than the
// file takes it. (A pipe is no test of this: Node writes to a pipe synchronously on Linux.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { svcPeakRss } from '../../helpers/subprocess.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { FULL_RUN, fullOr } from '../../helpers/full.js';
import { answerPcm, fastEmulator, lastSession, questionClip } from './talk-helpers.js';

const HEAP_MB = 40;
const CAPPED = { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` };
/** the audio the first test must bring through the capped heap: 4 times the heap in the full run, 1.5 times (more
 * than a held answer fits) in the everyday run */
const ENOUGH = fullOr(4, 1.5) * HEAP_MB * 1024 * 1024;
/** times each answer is said: ~3.6 s of 24 kHz PCM each, ~190 MB in all (~78 MB in the everyday run) */
const REPEAT = fullOr(1100, 450);
/** the same for the recording: ~30 min of answer (~15 min in the everyday run) */
const RECORD_REPEAT = fullOr(500, 250);
/** the peak RSS of the first test's run (the answer to a file, no recording) */
let streamedPeak = 0;

let emu: TestEmulator;
let question: string;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  fastEmulator(emu);
  emu.core.settings.realtimeAnswerRepeat = REPEAT;
  question = questionClip();
  dir = tempDir('svc-talkmem-');
});
afterAll(() => emu.close());

/** The PCM bytes of the newest session's answer, as the emulator said it (its text `repeat` times over). */
function answerBytes(repeat = REPEAT): number {
  const transcript = lastSession(emu).responses[0]!.transcript;
  const said = transcript.slice(0, (transcript.length + 1) / repeat - 1);
  return answerPcm(`${said} `).length * repeat;
}

describe('svc realtime talk under a capped heap', () => {
  it('an hour of answer to a file: every byte in the file, no heap exhaustion', async () => {
    const out = join(dir, 'answer.pcm');
    const { result: r, peak } = await svcPeakRss(['realtime', 'talk', '--input', question, '--output', out], {
      emu,
      env: CAPPED,
      timeout: 50_000,
    });
    streamedPeak = peak;
    expect(r.stderr).not.toMatch(/heap|allocation failed|warning/i);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('ended (the input ended; 1 answer)');
    expect(statSync(out).size).toBeGreaterThan(ENOUGH);
    expect(statSync(out).size).toBe(answerBytes());
  });

  it('--record through half an hour of answer: the recording is written as it comes, not held', async () => {
    // ~30 min of answer: a stereo recording of ~190 MB (a quarter hour, ~97 MB, outside the full run); the answer
    // itself goes to /dev/null
    emu.core.settings.realtimeAnswerRepeat = RECORD_REPEAT;
    const rec = join(dir, 'talk.wav');
    const args = ['realtime', 'talk', '--input', question, '--output', '/dev/null', '--record', rec];
    const { result: r, peak } = await svcPeakRss(args, { emu, env: CAPPED, timeout: 50_000 });
    emu.core.settings.realtimeAnswerRepeat = REPEAT;
    expect(r.stderr).not.toMatch(/heap|allocation failed|warning/i);
    expect(r.exitCode).toBe(0);
    // both channels, the answer's whole length on the right
    const size = statSync(rec).size;
    expect(size).toBeGreaterThan(2 * answerBytes(RECORD_REPEAT));
    expect(size).toBeGreaterThan(fullOr(4, 2) * HEAP_MB * 1024 * 1024);
    // ~128 MB (309 MB when the answer was held until the end): flat, ~121-128 MB from 58 to 190 MB of recording. What
    // the recording adds to the peak of the run above (no recording) is checked at any size: ~13 MB of 97, a held
    // recording adds about its size; the peak itself against the size at full size (below it the baseline dominates)
    expect(peak).toBeGreaterThan(0);
    expect(streamedPeak).toBeGreaterThan(0);
    expect(peak - streamedPeak).toBeLessThan(size * 0.5);
    if (FULL_RUN) expect(peak).toBeLessThan(size * 0.8);
  });
});
