// `tail -f notes | svc tts stream -o notes.pcm` runs for hours: its memory must not grow with the audio. The CLI runs
// with its heap capped at 40 MB and speaks several times that much PCM; the emulator renders at once (no real time),
// so the hours take seconds, and the text arrives faster than the audio can be written (the reader is behind).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSvc, svcShell } from '../../helpers/subprocess.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { fullOr } from '../../helpers/full.js';

const HEAP_MB = 40;
const CAPPED = { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` };
/** ~20 s of speech a line; 200 lines, an utterance each: ~180 MB of 24 kHz PCM, 4.5 times the heap (80 lines, 1.8
 * times, in the everyday run: more than a held stream fits) */
const LINE = `${'the lighthouse keeper wrote down every ship that passed the rocks at night '.repeat(3).trim()}.`;
const NOTES = Array.from({ length: fullOr(200, 80) }, (_, i) => `${i} ${LINE}\n\n`).join('');
const ENOUGH = fullOr(4, 1.5) * HEAP_MB * 1024 * 1024;

let emu: TestEmulator;
let dir: string;
let sent = 0;
const countSent = ({ bytes }: { bytes: number }) => (sent += bytes);
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-ttsmem-');
  emu.core.on('tts.audio.delta', countSent);
});
afterAll(async () => {
  emu.core.off('tts.audio.delta', countSent);
  await emu.close();
});

describe('svc tts stream under a capped heap', () => {
  it('PCM to a file: every byte the service sent is in the file, no heap exhaustion', async () => {
    sent = 0;
    const out = join(dir, 'notes.pcm');
    const r = await spawnSvc(['tts', 'stream', '-o', out], { emu, input: NOTES, env: CAPPED, timeout: 50_000 });
    expect(r.stderr).not.toMatch(/heap|allocation failed|warning/i);
    expect(r.exitCode).toBe(0);
    expect(sent).toBeGreaterThan(ENOUGH);
    expect(statSync(out).size).toBe(sent);
    expect(r.stderr).toContain(`wrote ${out} (pcm, ${sent} bytes)`);
  });

  it('PCM to stdout: every byte reaches the pipe, no heap exhaustion', async () => {
    sent = 0;
    const r = await svcShell('svc tts stream --codec pcm -o - | wc -c', {
      emu,
      input: NOTES,
      env: CAPPED,
      timeout: 50_000,
    });
    expect(r.stderr).not.toMatch(/heap|allocation failed|warning/i);
    expect(r.exitCode).toBe(0);
    expect(sent).toBeGreaterThan(ENOUGH);
    expect(Number(r.stdout.trim())).toBe(sent);
  });
});
