// The simulated echo path of the full-duplex tests (talk-echo*.test.ts): svc realtime talk plays through the real
// `speaker` package into ALSA's file plugin; the fake `arecord` (echo-room.mjs) plays those samples on its own clock
// through a room response (60 ms later at -10 dB, reflections, a tail), adds noise and the person's questions, and
// records in real time.
import { expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { needSpeaker } from '../../helpers/tools.js';
import { spawnSvc } from '../../helpers/subprocess.js';
import { lastSession } from './talk-helpers.js';
import { answersShown, questions, writeRoom } from './echo-room-setup.mjs';

/**
 * The room: a fake arecord first on PATH, and ALSA's default device writing the speaker's samples to `played`.
 * `gainDb`: the direct path's level (-10 dB; far lower: a speaker the microphone does not hear).
 */
export function room(turns: number, rate: number, driftPpm: number, gainDb = -10) {
  const dir = tempDir('svc-echo-room-');
  return { dir, env: writeRoom(dir, { turns, rate, driftPpm, gainDb }) };
}

/**
 * A conversation of `turns` questions; ends (Ctrl-C) once each was answered, or at the first barge-in. `driftPpm`:
 * the room's speaker runs that much faster than its microphone (two devices on their own clocks).
 */
export async function converse(
  emu: TestEmulator,
  flags: string[],
  turns: number,
  driftPpm = 0,
  /** how many answers stdout holds so far (the transcript's lines; with --json, its own events) */
  answers = (stdout: string) => stdout.match(/^assistant: .*$/gm)?.length ?? 0,
) {
  needSpeaker();
  // G.711 sessions (--audio-format pcmu/pcma) capture and play at 8 kHz
  const r = room(turns, flags.some((f) => f === 'pcmu' || f === 'pcma') ? 8000 : 24000, driftPpm);
  const proc = spawnSvc(['realtime', 'talk', '--duplex', '--vad-silence-ms', '300', ...flags], {
    emu,
    env: r.env,
    timeout: turns * 9000 + 15_000,
  });
  let stdout = '';
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (answers(stdout) >= turns || stderr.includes('(interrupted')) resolve();
    };
    proc.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      answersShown(r.dir, answers(stdout));
      check();
    });
    proc.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      check();
    });
    proc.then(
      (done) =>
        reject(new Error(`svc ended first (exit ${done.exitCode}, ${done.signal ?? 'no signal'}): ${stdout}${stderr}`)),
      reject,
    );
  });
  proc.kill('SIGINT');
  const done = await proc;
  return { exitCode: done.exitCode, stdout, stderr: String(done.stderr), log: lastSession(emu), dir: r.dir };
}

/** The conversation went as with no echo at all: every question answered to its end, no barge-in. */
export function expectNoFalseBargeIn(r: Awaited<ReturnType<typeof converse>>, turns: number): void {
  expect(r.exitCode).toBe(0);
  // the agent never heard itself: no speech started while it spoke, so no barge-in and no answer cancelled (on a
  // failure, the room's last events say when the person asked and the speaker played, on the room's clock)
  const roomLog = readFileSync(join(r.dir, 'room.log'), 'utf8');
  const lastEvents = roomLog.trim().split('\n').slice(-8).join('\n');
  // (also on the test's stderr: a failure that its retry passes leaves no message of its own in the run's output)
  if (r.stderr.includes('(interrupted')) console.warn(`a barge-in; the room's last events:\n${lastEvents}`);
  expect(r.stderr, `the room's last events:\n${lastEvents}`).not.toContain('(interrupted');
  expect(r.log.transcripts).toEqual(questions(turns));
  expect(r.log.responses.map((x) => x.status)).toEqual(Array(turns).fill('completed'));
  const answers = r.stdout.match(/^assistant: .*$/gm) ?? [];
  expect(answers).toHaveLength(turns);
  expect(answers.every((a) => !a.includes('[interrupted]'))).toBe(true);
  // the echo was really there: the room played every answer into the microphone
  const plays = roomLog.split('\n').filter((l) => l.includes('"play"'));
  expect(plays.length).toBeGreaterThanOrEqual(turns);
}
