// An interrupted or failed download leaves neither the target nor a temp file behind.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../../helpers/in-process.js';
import { spawnSvc } from '../../helpers/subprocess.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
let id: string;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-int-');
  const src = join(dir, 'big.bin');
  writeFileSync(src, randomBytes(8 * 1024 * 1024));
  const r = await svcInProcess(['files', 'upload', src], { emu });
  expect(r.exitCode, r.stderr).toBe(0);
  id = r.stdout.split('\t')[0]!;
});
afterAll(() => emu.close());

async function waitForTemp(out: string, proc: { exitCode?: number | null }): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const temp = readdirSync(out).find((n) => n.endsWith('.part'));
    if (temp) return temp;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no temp file appeared (exit ${proc.exitCode})`);
}

describe('svc files download, interrupted', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} half-way leaves no partial file and no temp file`, async () => {
      emu.core.settings.contentChunkDelayMs = 40; // 8 MiB in 64 KiB steps: about 5 s
      const out = join(dir, `out-${signal}`);
      mkdirSync(out);
      const proc = spawnSvc(['files', 'download', id, '-o', join(out, 'copy.bin')], { emu });
      try {
        const temp = await waitForTemp(out, proc);
        expect(temp).toMatch(/^\.copy\.bin\..*\.part$/); // bytes were landing in the temp file
        proc.kill(signal);
        const r = await proc;
        expect(r.exitCode).toBe(signal === 'SIGINT' ? 130 : 143); // 128 + the signal's number
        expect(readdirSync(out)).toEqual([]);
      } finally {
        emu.core.settings.contentChunkDelayMs = 0;
      }
    });
  }

  it('a connection dropped mid-download fails (exit 1) and leaves nothing', async () => {
    emu.core.settings.contentDropAfterBytes = 1024 * 1024;
    const out = join(dir, 'out-drop');
    mkdirSync(out);
    const r = await svcInProcess(['files', 'download', id, '-o', join(out, 'copy.bin')], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/connection .*(lost|closed)/);
    expect(readdirSync(out)).toEqual([]);
    expect(existsSync(join(out, 'copy.bin'))).toBe(false);
  });

  it('after all that, a clean download still works', async () => {
    const out = join(dir, 'out-ok');
    mkdirSync(out);
    const r = await svcInProcess(['files', 'download', id, '-o', join(out, 'copy.bin')], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readdirSync(out)).toEqual(['copy.bin']);
  });
});
