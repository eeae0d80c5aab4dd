// issue 12 item 4: streamed `chat -n 2` separates the choices with the headers `--no-stream` prints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('svc chat -n 2', () => {
  it('streamed and not streamed print the same headers and texts', async () => {
    const streamed = await svcInProcess(['chat', '-n', '2', '--seed', '7', 'name a colour'], { emu });
    const whole = await svcInProcess(['chat', '-n', '2', '--seed', '7', '--no-stream', 'name a colour'], { emu });
    expect(streamed.exitCode).toBe(0);
    expect(whole.exitCode).toBe(0);
    expect(streamed.stdout.match(/^--- choice \d ---$/gm)).toEqual(['--- choice 0 ---', '--- choice 1 ---']);
    expect(streamed.stdout.startsWith('--- choice 0 ---\n')).toBe(true);
    expect(streamed.stdout).toBe(whole.stdout);
  });

  it('a single choice has no header', async () => {
    const r = await svcInProcess(['chat', 'hi'], { emu });
    expect(r.stdout).not.toContain('--- choice');
  });
});
