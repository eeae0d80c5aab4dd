// One colour decision, honoured by text, spinners and progress bars: every spinner/progress path run on a real
// pseudo-terminal prints no SGR code with NO_COLOR=1 or --no-color, and prints them with FORCE_COLOR=1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, tempDir, type TestEmulator } from '../helpers/cli.js';
import { SGR, svcInPty } from '../helpers/terminal.js';
import { livePaths, prepareInputs, type LivePath } from './terminal-paths.js';

let emu: TestEmulator;
let paths: LivePath[];

beforeAll(async () => {
  emu = await startTestEmulator();
  emu.core.settings.deferredDelayMs = 600;
  emu.core.settings.videoDelayMs = 600;
  paths = livePaths(await prepareInputs(emu));
});
afterAll(() => emu.close());

const run = (p: LivePath, env: Record<string, string | undefined>, extra: string[] = []) =>
  svcInPty([...extra, ...p.args(tempDir())], { emu, cols: 100, env });

describe('colour on a pseudo-terminal', () => {
  it('NO_COLOR=1: no SGR code on any spinner or progress path', async () => {
    for (const p of paths) {
      const r = await run(p, { NO_COLOR: '1' });
      expect(r.exitCode, `${p.name}\n${r.output}`).toBe(0);
      expect(r.output, p.name).not.toMatch(SGR);
    }
  });

  it('FORCE_COLOR=1: every spinner and progress path is coloured', async () => {
    for (const p of paths) {
      const r = await run(p, { NO_COLOR: undefined, FORCE_COLOR: '1' });
      expect(r.exitCode, `${p.name}\n${r.output}`).toBe(0);
      expect(r.output, p.name).toMatch(SGR);
    }
  });

  it('--no-color wins over FORCE_COLOR: no spinner colour, no green ✔', async () => {
    const video = paths.find((p) => p.name.startsWith('videos'))!;
    const r = await run(video, { NO_COLOR: undefined, FORCE_COLOR: '1' }, ['--no-color']);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain('✔');
    expect(r.output).not.toMatch(SGR);
  });

  it('a terminal without NO_COLOR is coloured; errors too, unless NO_COLOR', async () => {
    const coloured = await svcInPty(['files', 'get', 'file_missing'], { emu, cols: 100, env: { NO_COLOR: undefined } });
    expect(coloured.exitCode).toBe(5);
    expect(coloured.output).toMatch(/\u001b\[31merror:/);
    const plain = await svcInPty(['files', 'get', 'file_missing'], { emu, cols: 100, env: { NO_COLOR: '1' } });
    expect(plain.output).toContain('error:');
    expect(plain.output).not.toMatch(SGR);
  });
});
