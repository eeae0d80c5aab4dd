// svc batch's INPUT `-`: stdin's copy and the process `exit` listener that would remove it at the latest are gone
// when the run is over, so a process that runs batches in turn (a test worker, an MCP server) gathers no listeners
// (Node warns, MaxListenersExceededWarning, past ten).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { itWithEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/files.js';
import { svcInProcess } from '../helpers/in-process.js';

const it = itWithEmulator();

describe('svc batch - (stdin)', () => {
  it('leaves no exit listener behind: a run, and an input refused after it was read', async ({ emu }) => {
    const dir = tempDir();
    // a run from a file first: what any run registers once in a process is counted before
    writeFileSync(join(dir, 'rows.txt'), 'a\n');
    const warm = await svcInProcess(['batch', 'tokenize', join(dir, 'rows.txt')], { emu, cwd: dir });
    expect(warm.exitCode, warm.stderr).toBe(0);
    const before = process.listenerCount('exit');
    for (let i = 0; i < 3; i++) {
      const ok = await svcInProcess(['batch', 'tokenize', '-', '--input-format', 'text'], {
        emu,
        input: 'a\nb\n',
        cwd: dir,
      });
      expect(ok.exitCode, ok.stderr).toBe(0);
      const refused = await svcInProcess(['batch', 'chat', '-'], { emu, input: 'question,id\nx,1\n', cwd: dir });
      expect(refused.exitCode).toBe(2);
    }
    expect(process.listenerCount('exit')).toBe(before);
  });
});
