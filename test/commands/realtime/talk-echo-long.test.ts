// The full-duplex echo test at length (CI only: vitest.config.ts CI_ONLY; ~2 minutes of real-time conversation):
// 20 turns of the agent speaking through the simulated echo path (echo-room.ts) with --aec produce no false
// barge-in; also with the room's speaker 208 ppm faster than its microphone (48,010 against 48,000 Hz: two devices).
// The short version, with and without the canceller, is talk-echo.test.ts.
import { describe } from 'vitest';
import { itWithEmulator } from '../../helpers/emulator.js';
import { converse, expectNoFalseBargeIn } from './echo-room.js';
import { realTimeEmulator } from './talk-helpers.js';

const test = itWithEmulator(realTimeEmulator);
const TURNS = 20;

// Real time on a 2-core machine the full run keeps busy: started first, beside the run's busiest seconds, its first
// test barged in at its first try in 4 of 6 Node runs (and in both tries once); it now starts last (vitest.config.ts
// LAST). Each try keeps every assertion; a real regression fails them all (--no-aec barges in at every answer).
describe('svc realtime talk --duplex --aec on open speakers, 20 turns', { retry: 2 }, () => {
  test('20 answers, none interrupted', { timeout: 240_000 }, async ({ emu }) => {
    expectNoFalseBargeIn(await converse(emu, ['--aec'], TURNS), TURNS);
  });

  test('20 answers, none interrupted, the speaker +208 ppm off the microphone', { timeout: 240_000 }, async ({
    emu,
  }) => {
    expectNoFalseBargeIn(await converse(emu, ['--aec'], TURNS, 208), TURNS);
  });
});
