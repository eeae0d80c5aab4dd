import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcShell } from '../../helpers/subprocess.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const sent = (path: string) =>
  emu
    .requests()
    .filter((r) => r.path === path)
    .map((r) => JSON.parse(r.body!));

describe('svc legacy completions', () => {
  it("the help's --stop example, run by a shell, sends a real newline (issue 25, item 25)", async () => {
    const help = await svcInProcess(['legacy', 'completions', '--help']);
    const example = help.stdout.split('\n').find((l) => /\$ svc .*--stop/.test(l));
    expect(example).toBeDefined();
    emu.clearRequests();
    const r = await svcShell(example!.replace(/^\s*\$ /, ''), { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(sent('/v1/completions')[0].stop).toEqual(['\n']);
  });

  it('prints the completion, and each choice with -n', async () => {
    const r = await svcInProcess(['legacy', 'completions', 'Once upon a time', '--max-tokens', '8'], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().split(/\s+/).length).toBeLessThanOrEqual(9);
    const many = await svcInProcess(['legacy', 'completions', 'Once', '-n', '2', '--max-tokens', '3'], { emu });
    expect(many.stdout).toMatch(/^--- choice 0 ---\n.+\n--- choice 1 ---\n.+\n$/);
  });

  it('sends its fields and prints --json as sent', async () => {
    emu.clearRequests();
    const r = await svcInProcess(
      [
        'legacy',
        'completions',
        'abc',
        '--echo',
        '--suffix',
        'END',
        '--seed',
        '7',
        '--stop',
        '\n',
        '--temperature',
        '0',
        '--top-p',
        '1',
        '--json',
      ],
      { emu },
    );
    expect(sent('/v1/completions')[0]).toMatchObject({
      prompt: 'abc',
      echo: true,
      suffix: 'END',
      seed: 7,
      stop: ['\n'],
      temperature: 0,
      top_p: 1,
    });
    const body = JSON.parse(r.stdout);
    expect(body).toMatchObject({ object: 'text_completion' });
    expect(body.choices[0].text.startsWith('abc')).toBe(true);
  });

  it("a reasoning model is refused: the server's message is shown, exit 1", async () => {
    const r = await svcInProcess(['legacy', 'completions', '-m', 'svc-4-reasoning', 'hi'], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      /svc-4-reasoning is a reasoning model and is not supported by the legacy completions endpoint/,
    );
    expect(r.stderr).toContain('svc chat');
    expect(r.stdout).toBe('');
  });
});

describe('svc legacy complete', () => {
  it('wraps the prompt in the human/assistant format and prints the completion', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['legacy', 'complete', 'What is a queue?', '--stop', 'STOP', '--top-k', '5'], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^This is the emulator's answer to "What is a queue\?"/);
    expect(sent('/v1/complete')[0]).toMatchObject({
      prompt: '\n\nHuman: What is a queue?\n\nAssistant:',
      max_tokens_to_sample: 256,
      stop_sequences: ['STOP'],
      top_k: 5,
    });
  });

  it('--raw sends the prompt as given; --json prints the reply', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['legacy', 'complete', '--raw', '--json'], {
      emu,
      input: '\n\nHuman: hi\n\nAssistant:',
    });
    expect(sent('/v1/complete')[0].prompt).toBe('\n\nHuman: hi\n\nAssistant:');
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'completion', model: 'svc-4' });
  });

  it("a reasoning model is refused with the server's message", async () => {
    const r = await svcInProcess(['legacy', 'complete', '-m', 'svc-reasoning', 'hi'], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/reasoning model and is not supported by the legacy complete endpoint/);
  });
});

const cases: [string, string[], RegExp][] = [
  ['completions: n of 0', ['completions', '-n', '0'], /--n: 0 .*from 1 to 128/],
  ['completions: n above 128', ['completions', '-n', '129'], /--n: 129 .*from 1 to 128/],
  ['completions: max_tokens of 0', ['completions', '--max-tokens', '0'], /--max-tokens: 0 .*from 1 to 2147483647/],
  [
    'completions: more than 4 stop sequences',
    ['completions', '--stop', 'a', '--stop', 'b', '--stop', 'c', '--stop', 'd', '--stop', 'e'],
    /--stop: 5 values .*at most 4/,
  ],
  [
    'completions: seed beyond int32',
    ['completions', '--seed', '2147483648'],
    /--seed: 2147483648 .*from -2147483648 to 2147483647/,
  ],
  ['completions: temperature above 2', ['completions', '--temperature', '3'], /--temperature: 3 .*from 0 to 2/],
  ['completions: top_p of 0', ['completions', '--top-p', '0'], /--top-p: 0 .*greater than 0/],
  [
    'complete: max_tokens_to_sample of 0',
    ['complete', '--max-tokens-to-sample', '0'],
    /--max-tokens-to-sample: 0 .*from 1 to 2147483647/,
  ],
  ['complete: top_k of 0', ['complete', '--top-k', '0'], /--top-k: 0 .*from 1 to 2147483647/],
  ['complete: temperature below 0', ['complete', '--temperature', '-1'], /--temperature: -1 .*from 0 to 2/],
  [
    'complete: more than 4 stop sequences',
    ['complete', '--stop', 'a', '--stop', 'b', '--stop', 'c', '--stop', 'd', '--stop', 'e'],
    /--stop: 5 values .*at most 4/,
  ],
  ['complete: --raw prompt not in the format', ['complete', '--raw'], /--raw: .*ends with/],
];

describe('svc legacy rejects bad input before sending', () => {
  for (const [name, args, message] of cases) {
    it(name, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['legacy', ...args, 'hi'], { emu });
      expect(r.stderr).toMatch(message);
      expect(r.exitCode).toBe(2);
      expect(emu.requests()).toHaveLength(0);
    });
  }
});
