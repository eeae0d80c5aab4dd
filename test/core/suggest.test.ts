// Did-you-mean at every level (groups, flags, enumerated values, config keys) and the argument rules: bare words
// join into one text, and `--` sends words that look like a subcommand as the prompt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closest } from '../../src/core/suggest.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('closest', () => {
  it('finds typos, swaps and prefixes, and nothing far away', () => {
    expect(closest('lst', ['list', 'get', 'delete'])).toBe('list');
    expect(closest('modle', ['base_url', 'model', 'timeout'])).toBe('model');
    expect(closest('dwonload', ['download', 'upload'])).toBe('download');
    expect(closest('up', ['download', 'upload'])).toBe('upload');
    expect(closest('zzzz', ['list', 'get'])).toBeUndefined();
  });
});

describe('did you mean, at every level, exit 2 and nothing sent', () => {
  for (const [args, want] of [
    [['fils', 'list'], "unknown command 'fils' (did you mean files?)"],
    // help does not hide the typo (issue 25, item 27)
    [['fils', '--help'], "unknown command 'fils' (did you mean files?)"],
    [['nosuchcmd', '--help'], "unknown command 'nosuchcmd'\n(`svc --help` lists its commands)"],
    [['files', 'lst', '--help'], "unknown command 'lst' for 'svc files' (did you mean list?)"],
    [['phone', 'v2', 'lis', '-h'], "unknown command 'lis' for 'svc phone v2' (did you mean list?)"],
    [['files', 'lst'], "unknown command 'lst' for 'svc files' (did you mean list?)"],
    [['phone', 'v2', 'lis'], "unknown command 'lis' for 'svc phone v2' (did you mean list?)"],
    [['files', 'list', '--limt', '2'], "unknown option '--limt' (did you mean --limit?)"],
    [
      ['files', 'list', '--sort-by', 'sise'],
      '--sort-by: sise is not allowed: one of created_at, filename, size (did you mean size?)',
    ],
    [
      ['config', 'set', 'modle', 'svc-4'],
      /KEY: modle is not allowed: one of base_url, model, [a-zA-Z_., ]+ \(did you mean model\?\)/,
    ],
  ] as [string[], string | RegExp][]) {
    it(`svc ${args.join(' ')}`, async () => {
      emu.clearRequests();
      const r = await svcInProcess(args, { emu });
      expect(r.exitCode).toBe(2);
      if (typeof want === 'string') expect(r.stderr).toContain(want);
      else expect(r.stderr).toMatch(want);
      expect(emu.requests()).toEqual([]);
    });
  }
});

describe('arguments', () => {
  it('svc tokenize hello world tokenizes the two words as one text', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['tokenize', 'hello', 'world', '--count'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(emu.requests()[0]!.body!).text).toBe('hello world');
  });

  it('svc chat -- get me a recipe sends the words as the prompt; without -- it says how', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['chat', '--no-stream', '--', 'get', 'me', 'a', 'recipe'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const body = JSON.parse(emu.requests().find((q) => q.path === '/v1/chat/completions')!.body!);
    expect(body.messages.at(-1).content).toBe('get me a recipe');
    const without = await svcInProcess(['chat', 'get', 'me', 'a', 'recipe'], { emu });
    expect(without.exitCode).toBe(2);
    expect(without.stderr).toContain('svc chat -- get');
  });
});
