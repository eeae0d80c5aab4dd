// Full duplex on open speakers: svc realtime talk --duplex with a simulated echo path (echo-room.ts), against the
// emulator, whose server VAD starts a turn on any 20 ms above its threshold. With the echo canceller (the default
// in duplex) the agent never hears itself: every question is answered to its end, no barge-in; with --no-aec the
// same room makes the agent interrupt itself. 3 turns here; talk-echo-long.test.ts (CI) has 20.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { itWithEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { converse, expectNoFalseBargeIn } from './echo-room.js';
import { questionClip, realTimeEmulator } from './talk-helpers.js';

const test = itWithEmulator(realTimeEmulator);

describe.concurrent('svc realtime talk --duplex on open speakers (simulated echo path)', () => {
  test('with the echo canceller (on by default): 3 answers, none interrupted', async ({ emu }) => {
    const r = await converse(emu, [], 3);
    expect(r.stderr).toContain('duplex, talk any time (echo cancelled)');
    expectNoFalseBargeIn(r, 3);
  });

  test('the same at 8 kHz (--audio-format pcmu): 2 answers, none interrupted', async ({ emu }) => {
    const r = await converse(emu, ['--audio-format', 'pcmu'], 2);
    expect(readFileSync(join(r.dir, 'args'), 'utf8')).toMatch(/-r 8000/);
    expectNoFalseBargeIn(r, 2);
  });

  test('the speaker 208 ppm faster than the microphone (two devices): 3 answers, none interrupted', async ({ emu }) => {
    expectNoFalseBargeIn(await converse(emu, [], 3, 208), 3);
  });

  test('with --no-aec the same room makes the agent interrupt itself (a false barge-in)', async ({ emu }) => {
    const r = await converse(emu, ['--no-aec'], 3);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('duplex, talk any time;');
    // the agent's own voice, echoed, started a "user" turn while it spoke: playback stopped, the answer cut short
    expect(r.stderr).toContain('(interrupted: playback stopped)');
    expect(r.stdout).toMatch(/^assistant: .*\[interrupted\]$/m);
  });
});

describe.concurrent('--aec where there is no echo to cancel', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'realtime talk --aec with a file as input',
      ['realtime', 'talk', '--aec', '--input', 'QUESTION'],
      /--aec: with --input \S+ --output speaker is not allowed: the microphone and the speaker/,
    ],
    [
      'realtime talk --aec with a file as output',
      ['realtime', 'talk', '--aec', '--duplex', '--output', 'OUT'],
      /--aec: with --input mic --output \S+ is not allowed: the microphone and the speaker/,
    ],
    [
      'calls join --aec without local audio',
      ['calls', 'join', 'rtc_1', '--aec'],
      /--aec: with --input \(none\) --output \(none\) is not allowed/,
    ],
  ];
  for (const [what, args, message] of cases) {
    test(`${what}: exit 2 before anything is sent`, async ({ emu }) => {
      const files: Record<string, string> = { QUESTION: questionClip(), OUT: join(tempDir(), 'a.wav') };
      const r = await svcInProcess(
        args.map((a) => files[a] ?? a),
        { emu },
      );
      expect(r.exitCode, String(r.stderr)).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(emu.requests()).toHaveLength(0);
    });
  }
});
