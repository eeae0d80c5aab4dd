// /copy's clipboard programs per platform (injected), each found on PATH and fed the text; none: a clear message.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clipboardPrograms, copyToClipboard } from '../../../src/commands/chat/clipboard.js';
import { tempDir } from '../../helpers/files.js';

/** a fake program that keeps its stdin in `out` */
function fake(bin: string, name: string, out: string, code = 0): void {
  writeFileSync(join(bin, name), `#!/bin/sh\n/bin/cat > ${out}\nexit ${code}\n`, { mode: 0o755 });
}

describe('clipboard', () => {
  it('names the program of each platform', () => {
    expect(clipboardPrograms('darwin').map((p) => p.program)).toEqual(['pbcopy']);
    expect(clipboardPrograms('win32').map((p) => p.program)).toEqual(['clip.exe']);
    expect(clipboardPrograms('linux').map((p) => p.program)).toEqual(['wl-copy', 'xclip', 'clip.exe']);
  });

  it('feeds the text to the first program found that succeeds', async () => {
    const bin = tempDir();
    const out = join(tempDir(), 'clip');
    fake(bin, 'pbcopy', out);
    expect(await copyToClipboard('héllo', { PATH: bin }, 'darwin')).toBe('pbcopy');
    expect(readFileSync(out, 'utf8')).toBe('héllo');
    // on Linux a failing wl-copy (no Wayland) gives way to xclip (WSL's clip.exe after both)
    fake(bin, 'wl-copy', `${out}.wl`, 1);
    fake(bin, 'xclip', `${out}.x`);
    expect(await copyToClipboard('text', { PATH: bin }, 'linux')).toBe('xclip');
    expect(readFileSync(`${out}.x`, 'utf8')).toBe('text');
  });

  it('says which programs it looked for when none is there', async () => {
    const r = await copyToClipboard('text', { PATH: tempDir() }, 'darwin');
    expect(r).toBeInstanceOf(Error);
    expect((r as Error).message).toBe(
      'no clipboard program found (looked for pbcopy on PATH): install one, or save the answer with /save FILE',
    );
  });
});
