import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { writeTemp } from '../../helpers/files.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const sent = () =>
  emu
    .requests()
    .filter((r) => r.path === '/v1/messages')
    .map((r) => JSON.parse(r.body!));

describe('svc messages', () => {
  it('prints the text in a pipe; --stream prints the same text', async () => {
    const plain = await svcInProcess(['messages', 'hello there'], { emu });
    expect(plain.exitCode).toBe(0);
    expect(plain.stdout).toMatch(/^This is the emulator's answer to "hello there"\..*\n$/);
    expect(plain.stderr).toBe('');
    const streamed = await svcInProcess(['messages', '--stream', 'hello there'], { emu });
    expect(streamed.stdout).toBe(plain.stdout);
  });

  it("sends the convention's fields: system, max_tokens, stop_sequences, sampling, stdin joined", async () => {
    emu.clearRequests();
    const r = await svcInProcess(
      [
        'messages',
        '-s',
        'be terse',
        '--max-tokens',
        '200',
        '--stop',
        'answer',
        '--temperature',
        '0.2',
        '--top-p',
        '0.9',
        '--top-k',
        '40',
        'summarize',
      ],
      { emu, input: 'some text' },
    );
    expect(r.exitCode).toBe(0);
    expect(sent()[0]).toMatchObject({
      model: 'svc-latest',
      system: 'be terse',
      max_tokens: 200,
      stop_sequences: ['answer'],
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      messages: [{ role: 'user', content: 'summarize\n\nsome text' }],
    });
    expect(r.stdout).not.toContain('answer');
  });

  it('--json prints the message as sent; with --stream one event per line', async () => {
    const r = await svcInProcess(['messages', '--json', 'hi'], { emu });
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
    const s = await svcInProcess(['messages', '--json', '--stream', 'hi'], { emu });
    const types = s.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).type);
    expect(types[0]).toBe('message_start');
    expect(types).toContain('content_block_delta');
    expect(types[types.length - 1]).toBe('message_stop');
  });

  it('a cut answer warns on stderr; tool_use blocks are JSON lines', async () => {
    const cut = await svcInProcess(['messages', '--max-tokens', '2', 'hello'], { emu });
    expect(cut.stderr).toContain('cut off at 2 tokens');
    const tool = writeTemp(
      't.json',
      JSON.stringify({
        name: 'lookup',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      }),
    );
    const t = await svcInProcess(['messages', '--tool', tool, '--stream', 'find it'], { emu });
    const use = JSON.parse(t.stdout.trim());
    expect(use.name).toBe('lookup');
    expect(typeof use.input.q).toBe('string');
    expect(use.id).toMatch(/^toolu_/);
  });
});

const cases: [string, string[], RegExp][] = [
  ['max_tokens of 0', ['--max-tokens', '0'], /--max-tokens: 0 .*from 1 to 2147483647/],
  ['max_tokens beyond int32', ['--max-tokens', '2147483648'], /--max-tokens: 2147483648 .*from 1 to 2147483647/],
  ['temperature above 2', ['--temperature', '2.1'], /--temperature: 2\.1 .*from 0 to 2/],
  ['top_p of 0', ['--top-p', '0'], /--top-p: 0 .*greater than 0 and at most 1/],
  ['top_k of 0', ['--top-k', '0'], /--top-k: 0 .*from 1 to 2147483647/],
  [
    'more than 4 stop sequences',
    ['--stop', 'a', '--stop', 'b', '--stop', 'c', '--stop', 'd', '--stop', 'e'],
    /--stop: 5 values .*at most 4/,
  ],
  [
    'tool choice naming no tool',
    ['--tool-choice', 'other'],
    /--tool-choice: other .*auto, any, none, or the name of a --tool/,
  ],
];

describe('svc messages rejects bad input before sending', () => {
  for (const [name, args, message] of cases) {
    it(name, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['messages', ...args, 'hi'], { emu });
      expect(r.stderr).toMatch(message);
      expect(r.exitCode).toBe(2);
      expect(emu.requests()).toHaveLength(0);
    });
  }
});
