// issue 12 item 4: the newline that ends piped text is not a token of it.
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

const sentText = () =>
  emu
    .requests()
    .filter((r) => r.path === '/v1/tokenize-text')
    .map((r) => JSON.parse(r.body!).text as string);

describe('svc tokenize --count with stdin', () => {
  it('`echo hello | svc tokenize --count` counts what `svc tokenize --count hello` counts', async () => {
    emu.clearRequests();
    const piped = await svcInProcess(['tokenize', '--count'], { emu, input: 'hello\n' });
    const arg = await svcInProcess(['tokenize', '--count', 'hello'], { emu });
    expect(piped.exitCode).toBe(0);
    expect(piped.stdout).toBe(arg.stdout);
    expect(sentText()).toEqual(['hello', 'hello']);
  });

  it('only the final newline goes: inner and earlier newlines stay', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['tokenize', '--count'], { emu, input: 'a\n\nb\r\n' });
    expect(r.exitCode).toBe(0);
    expect(sentText()).toEqual(['a\n\nb']);
  });

  it('stdin that is only a newline is empty: exit 2, nothing sent', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['tokenize', '--count'], { emu, input: '\n' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/no text/);
    expect(emu.requests()).toEqual([]);
  });
});
