// issue 12 item 3: `legacy completions` sends prompt as an array (--prompt, repeatable).
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

const posted = () =>
  emu
    .requests()
    .filter((r) => r.path === '/v1/completions')
    .map((r) => JSON.parse(r.body!));

describe('svc legacy completions --prompt', () => {
  it('several --prompt are sent as one array; every choice is printed under its header', async () => {
    emu.clearRequests();
    const r = await svcInProcess(
      ['legacy', 'completions', '--prompt', 'Roses are', '--prompt', 'Violets are', '-n', '2', '--max-tokens', '5'],
      { emu },
    );
    expect(r.exitCode).toBe(0);
    expect(posted()[0]).toMatchObject({ prompt: ['Roses are', 'Violets are'], n: 2, max_tokens: 5 });
    expect(r.stdout.match(/^--- choice \d ---$/gm)).toEqual([
      '--- choice 0 ---',
      '--- choice 1 ---',
      '--- choice 2 ---',
      '--- choice 3 ---',
    ]);
  });

  it('--json prints the reply as sent (one choice per prompt)', async () => {
    const r = await svcInProcess(['legacy', 'completions', '--prompt', 'a', '--prompt', 'b', '--json'], { emu });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).choices).toHaveLength(2);
  });

  it('--prompt together with PROMPT words, or an empty --prompt, is exit 2 before sending', async () => {
    emu.clearRequests();
    const both = await svcInProcess(['legacy', 'completions', '--prompt', 'a', 'more words'], { emu });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/--prompt: a .*not together with PROMPT arguments/);
    const empty = await svcInProcess(['legacy', 'completions', '--prompt', ''], { emu });
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toMatch(/--prompt: .*a non-empty prompt/);
    expect(emu.requests()).toEqual([]);
  });
});
