// The full-duplex echo test at length (CI only: vitest.config.ts CI_ONLY; ~2 minutes of real-time conversation):
// 20 turns of the agent speaking through the simulated echo path (echo-room.ts) with --aec produce no false
// barge-in. The short version, with and without the canceller, is talk-echo.test.ts.
import { describe } from 'vitest';
import { itWithEmulator } from '../../helpers/emulator.js';
import { converse, expectNoFalseBargeIn } from './echo-room.js';
import { realTimeEmulator } from './talk-helpers.js';

const test = itWithEmulator(realTimeEmulator);
const TURNS = 20;

describe('svc realtime talk --duplex --aec on open speakers, 20 turns', () => {
  test('20 answers, none interrupted', { timeout: 240_000 }, async ({ emu }) => {
    expectNoFalseBargeIn(await converse(emu, ['--aec'], TURNS), TURNS);
  });
});
