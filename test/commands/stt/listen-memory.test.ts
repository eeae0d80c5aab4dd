// `svc stt listen --no-realtime` sends a file as fast as the network takes it: the socket's send buffer must not
// hold the file. ~174 MB of PCM (1.5 h) go to the emulator from a CLI whose heap is capped at 40 MB (4 times that
// goes through it); its peak RSS (VmHWM, read from /proc while it runs) stays under the file's size: ~136-144 MB,
// flat at ~130 MB after the first second (before the fix every frame was handed to the socket at once: ~300 MB for
// 95 MB of PCM).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { textToTones } from 'svc-emulator/tones';
import { svcPeakRss } from '../../helpers/subprocess.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';

const HEAP_MB = 40;
const CAPPED = { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` };

let emu: TestEmulator;
let input: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  // one spoken line, then silence: the emulator decodes each tone of a line (its CPU, in this worker, is what a
  // file of lines costs: ~6 s for 1,150), and the CLI sends silence as it sends speech
  const one = textToTones('the lighthouse keeper wrote down every ship that passed. ', 16000);
  const pcm = Buffer.concat([one, Buffer.alloc(1149 * one.length)]);
  input = join(tempDir('svc-sttmem-'), 'notes.pcm');
  writeFileSync(input, pcm);
});
afterAll(() => emu.close());

describe('svc stt listen --no-realtime, a long file, under a capped heap', () => {
  it('keeps its memory bounded by its buffers, not by the file', async () => {
    const size = statSync(input).size;
    expect(size).toBeGreaterThan(4 * HEAP_MB * 1024 * 1024);
    const { result: r, peak } = await svcPeakRss(['stt', 'listen', '--no-realtime', '--input', input], {
      emu,
      env: CAPPED,
      timeout: 50_000,
    });
    expect(r.stderr).toBe(''); // no heap exhaustion, no warning
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout)).toContain('lighthouse keeper');
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(size);
  });
});
