// Folders svc cannot make (under /proc, where mkdir says ENOENT below a folder that exists): on Node 20 fs.mkdirSync's
// `recursive` looped there for ever, busy and deaf to SIGTERM. Now: the code cache is skipped, a config or data
// folder is an error naming it; each at once (the emulator's --state-dir: packages/emulator/test/main.test.ts).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import { ROOT } from '../helpers/files.js';
import { svcProcess } from '../helpers/subprocess.js';

describe.runIf(process.platform === 'linux')('a folder that cannot be made, under /proc', () => {
  it('SVC_CACHE_DIR: the command runs without its code cache', async () => {
    const emu = await startTestEmulator();
    try {
      const r = await svcProcess(['models', 'list', '-q'], {
        emu,
        env: { SVC_CACHE_DIR: '/proc/svc-x' },
        timeout: 20_000,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain('svc-4');
    } finally {
      await emu.close();
    }
  });

  it('SVC_CONFIG_DIR: exit 1 naming the folder', async () => {
    const r = await svcProcess(['config', 'set', 'model', 'svc-4'], {
      env: { SVC_CONFIG_DIR: '/proc/svc-x' },
      timeout: 20_000,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("cannot make a folder here, mkdir '/proc/svc-x'");
  });
});

describe('folders are made by makeDirs (svc-formats/make-dirs)', () => {
  it("no source of svc or the emulator calls fs's recursive mkdir", () => {
    const offenders = ['src', 'packages/emulator/src', 'packages/formats/src'].flatMap((dir) =>
      (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
        .filter((f) => f.endsWith('.ts'))
        .filter((f) => /mkdir(Sync)?\([^)]*recursive: true/.test(readFileSync(join(ROOT, dir, f), 'utf8')))
        .map((f) => `${dir}/${f}`),
    );
    expect(offenders).toEqual([]);
  });
});
