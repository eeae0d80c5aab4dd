// `svc calls join` stays on a call for hours: its memory must not grow with the turns or the audio. The CLI runs with
// its heap capped at 40 MB; the emulator's caller says 600 lines, one a turn, and each answer comes without real-time
// pacing: ~1 hour of the agent's audio (~4.5 times the heap) in seconds, saved to a file as it comes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSvc } from '../../helpers/subprocess.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { fullOr } from '../../helpers/full.js';
import { answerPcm, fastEmulator, lastSession } from '../realtime/talk-helpers.js';

const HEAP_MB = 40;
const CAPPED = { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` };
const ENOUGH = fullOr(4, 1.5) * HEAP_MB * 1024 * 1024;
/** the caller's lines, an answer each: 600 (~4.5 times the heap of audio) in the full run, 240 (~1.8 times) else */
const TURNS = fullOr(600, 240);
const LINES = Array.from(
  { length: TURNS },
  (_, i) => `line ${i} the lighthouse keeper wrote down every ship that passed`,
);

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
  fastEmulator(emu);
});
afterAll(() => emu.close());

describe('svc calls join under a capped heap', () => {
  it("600 turns, an hour of the agent's audio to a file: every answer whole, no heap exhaustion", async () => {
    const res = await fetch(`${emu.url}/_emulator/calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ caller_script: LINES }),
    });
    const { call } = (await res.json()) as { call: { call_id: string } };
    const out = join(tempDir('svc-joinmem-'), 'call.pcm');
    const r = await spawnSvc(['calls', 'join', call.call_id, '--output', out], { emu, env: CAPPED, timeout: 50_000 });
    expect(r.stderr).not.toMatch(/heap|allocation failed|warning/i);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(`call ${call.call_id} ended (the server closed it: call ended; ${TURNS} answers)`);
    const answers = lastSession(emu).responses.map((a) => a.transcript);
    expect(answers).toHaveLength(TURNS);
    const lines = String(r.stdout).trim().split('\n');
    expect(lines).toHaveLength(2 * TURNS);
    expect(lines.at(-1)).toBe(`agent: ${answers.at(-1)}`);
    const bytes = answers.reduce((n, a) => n + answerPcm(a).length, 0);
    expect(bytes).toBeGreaterThan(ENOUGH);
    expect(statSync(out).size).toBe(bytes);
  });
});
