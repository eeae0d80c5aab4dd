// `svc stt listen --no-realtime` sends a file as fast as the network takes it: the socket's send buffer must not
// hold the file. ~95 MB of PCM (50 min) go to the emulator; the CLI's peak RSS (VmHWM, read from /proc while it runs)
// stays well under that (before the fix every frame was handed to the socket at once: ~300 MB for this input).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { textToTones } from 'svc-emulator/tones';
import { spawnSvc } from '../../helpers/subprocess.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
let input: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  const one = textToTones('the lighthouse keeper wrote down every ship that passed. ', 16000);
  const pcm = Buffer.concat(Array.from({ length: 620 }, () => one));
  input = join(tempDir('svc-sttmem-'), 'notes.pcm');
  writeFileSync(input, pcm);
});
afterAll(() => emu.close());

describe('svc stt listen --no-realtime, a long file', () => {
  it('keeps its memory bounded by its buffers, not by the file', async () => {
    const size = readFileSync(input).length;
    expect(size).toBeGreaterThan(90e6);
    const run = spawnSvc(['stt', 'listen', '--no-realtime', '--input', input], { emu, timeout: 50_000 });
    let peak = 0;
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${run.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak, Number(m[1]) * 1024);
      } catch {
        // exited
      }
    }, 20);
    const r = await run.finally(() => clearInterval(poll));
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout)).toContain('lighthouse keeper');
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(size * 1.7);
  });
});
