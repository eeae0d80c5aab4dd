// One colour decision, honoured by text, spinners and progress bars: every spinner/progress path run on a terminal
// (in-process, 100 columns) prints no SGR code with NO_COLOR=1 or --no-color, and prints them with FORCE_COLOR=1;
// on a real pseudo-terminal, errors are coloured unless NO_COLOR, and chalk loads only when colour is on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers/files.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { svcProcess } from '../helpers/subprocess.js';
import { svcOnTerminal } from '../helpers/terminal.js';
import { livePaths, prepareInputs, type LivePath } from './terminal-paths.js';

/** any SGR (colour/style) escape sequence */
const SGR = /\u001b\[[0-9;:]*m/;

let emu: TestEmulator;
let paths: LivePath[];

beforeAll(async () => {
  emu = await startTestEmulator();
  emu.core.settings.deferredDelayMs = 600;
  emu.core.settings.videoDelayMs = 600;
  paths = livePaths(await prepareInputs(emu));
});
afterAll(() => emu.close());

// in this process, on a terminal of 100 columns (the spinners and progress bars are looked at only for their
// escapes); the real terminals below check the error colour and which modules load
const run = async (p: LivePath, env: Record<string, string | undefined>, extra: string[] = []) => {
  const r = await svcInProcess([...extra, ...p.args(tempDir())], { emu, tty: true, columns: 100, env });
  return { exitCode: r.exitCode, screen: r.stdout + r.stderr };
};

// the tests run at once: they wait on the emulator's delays and on terminals, and look at nothing the others change
describe.concurrent('colour on a pseudo-terminal', () => {
  it('NO_COLOR=1: no SGR code on any spinner or progress path', async () => {
    // all at once: they wait on the emulator's delays, not on the CPU
    const runs = await Promise.all(paths.map((p) => run(p, { NO_COLOR: '1' })));
    paths.forEach((p, i) => {
      expect(runs[i]!.exitCode, `${p.name}\n${runs[i]!.screen}`).toBe(0);
      expect(runs[i]!.screen, p.name).not.toMatch(SGR);
    });
  });

  it('FORCE_COLOR=1: every spinner and progress path is coloured', async () => {
    const runs = await Promise.all(paths.map((p) => run(p, { NO_COLOR: undefined, FORCE_COLOR: '1' })));
    paths.forEach((p, i) => {
      expect(runs[i]!.exitCode, `${p.name}\n${runs[i]!.screen}`).toBe(0);
      expect(runs[i]!.screen, p.name).toMatch(SGR);
    });
  });

  it('--no-color wins over FORCE_COLOR: no spinner colour, no green ✔', async () => {
    const video = paths.find((p) => p.name.startsWith('videos'))!;
    const r = await run(video, { NO_COLOR: undefined, FORCE_COLOR: '1' }, ['--no-color']);
    expect(r.exitCode, r.screen).toBe(0);
    expect(r.screen).toContain('✔');
    expect(r.screen).not.toMatch(SGR);
  });

  it('a terminal without NO_COLOR is coloured; errors too, unless NO_COLOR', async () => {
    const coloured = await svcOnTerminal(['files', 'get', 'file_missing'], {
      emu,
      cols: 100,
      env: { NO_COLOR: undefined },
    });
    expect(coloured.exitCode).toBe(5);
    expect(coloured.screen).toMatch(/\u001b\[31merror:/);
    const plain = await svcOnTerminal(['files', 'get', 'file_missing'], { emu, cols: 100, env: { NO_COLOR: '1' } });
    expect(plain.screen).toContain('error:');
    expect(plain.screen).not.toMatch(SGR);
  });

  it('chalk is loaded only when colour is on: not in a pipe, not with NO_COLOR on a terminal', async () => {
    const tracer = join(ROOT, 'test/fixtures/trace-imports.cjs');
    // chalk is bundled (dist/bundle/shared/chalk-*.cjs); from node_modules when the launcher runs dist/ (SVC_NO_BUNDLE)
    const chalkLoaded = (trace: string) =>
      readFileSync(trace, 'utf8')
        .split('\n')
        .some((u) => u.includes('/node_modules/chalk/') || /\/dist\/bundle\/shared\/chalk-/.test(u));
    const inPipe = join(tempDir(), 'imports.txt');
    expect(
      (
        await svcProcess(['files', 'ls'], {
          emu,
          nodeArgs: ['--require', tracer],
          env: { SVC_TRACE_IMPORTS: inPipe, NO_COLOR: undefined },
        })
      ).exitCode,
    ).toBe(0);
    expect(chalkLoaded(inPipe)).toBe(false);
    const plain = join(tempDir(), 'imports.txt');
    await svcOnTerminal(['files', 'ls'], {
      emu,
      cols: 100,
      env: { NODE_OPTIONS: `--require ${tracer}`, SVC_TRACE_IMPORTS: plain, NO_COLOR: '1' },
    });
    expect(chalkLoaded(plain)).toBe(false);
    const coloured = join(tempDir(), 'imports.txt');
    await svcOnTerminal(['files', 'ls'], {
      emu,
      cols: 100,
      env: { NODE_OPTIONS: `--require ${tracer}`, SVC_TRACE_IMPORTS: coloured, NO_COLOR: undefined },
    });
    expect(chalkLoaded(coloured)).toBe(true);
  });
});
