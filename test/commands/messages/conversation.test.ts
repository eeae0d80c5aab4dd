// issue 12 items 1 and 4 for `svc messages`: tool files in the messages form, conversations (--input, stdin, -c,
// --conversation), the no-prompt message, an empty tool file, the help's default.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

describe('svc messages tools', () => {
  it('a tool file in the messages form sends its input_schema (not an empty schema)', async () => {
    emu.clearRequests();
    const tool = writeTemp(
      'weather.json',
      JSON.stringify({ name: 'get_weather', description: 'weather of a city', input_schema: schema }),
    );
    const r = await svcInProcess(['messages', '--tool', tool, 'weather in Paris?'], { emu });
    expect(r.exitCode).toBe(0);
    expect(sent()[0].tools).toEqual([{ name: 'get_weather', description: 'weather of a city', input_schema: schema }]);
  });

  it('the chat and flat forms reach input_schema too', async () => {
    emu.clearRequests();
    const nested = writeTemp(
      'nested.json',
      JSON.stringify({ type: 'function', function: { name: 'a', parameters: schema } }),
    );
    const flat = writeTemp('flat.json', JSON.stringify([{ type: 'function', name: 'b', parameters: schema }]));
    const r = await svcInProcess(['messages', '--tool', nested, '--tool', flat, 'hi'], { emu });
    expect(r.exitCode).toBe(0);
    expect(sent()[0].tools.map((t: { input_schema: unknown }) => t.input_schema)).toEqual([schema, schema]);
  });

  it('a tool file holding [] is exit 2 and nothing is sent (messages, chat, responses)', async () => {
    const empty = writeTemp('empty.json', '[]');
    for (const cmd of [['messages'], ['chat'], ['responses', 'create']]) {
      emu.clearRequests();
      const r = await svcInProcess([...cmd, '--tool', empty, 'hi'], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/--tool: .*empty\.json .*non-empty array of tools \(it holds \[\]\)/);
      expect(emu.requests()).toEqual([]);
    }
  });
});

describe('svc messages conversations', () => {
  it('--input FILE sends the earlier turns and its system prompt, then the new user turn', async () => {
    emu.clearRequests();
    const file = writeTemp(
      'history.json',
      JSON.stringify({
        system: 'be terse',
        messages: [
          { role: 'user', content: 'my name is Ada' },
          { role: 'assistant', content: 'Hello Ada.' },
        ],
      }),
    );
    const r = await svcInProcess(['messages', '--input', file, 'what is my name?'], { emu });
    expect(r.exitCode).toBe(0);
    expect(sent()[0]).toMatchObject({
      system: 'be terse',
      messages: [
        { role: 'user', content: 'my name is Ada' },
        { role: 'assistant', content: 'Hello Ada.' },
        { role: 'user', content: 'what is my name?' },
      ],
    });
  });

  it('--input - reads JSON lines from stdin; a conversation ending in a user turn needs no prompt', async () => {
    emu.clearRequests();
    const lines = [
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'two' },
      { role: 'user', content: 'three' },
    ]
      .map((m) => JSON.stringify(m))
      .join('\n');
    const r = await svcInProcess(['messages', '--input', '-'], { emu, input: lines });
    expect(r.exitCode).toBe(0);
    expect(sent()[0].messages.map((m: { content: string }) => m.content)).toEqual(['one', 'two', 'three']);
  });

  it('malformed JSON in --input is exit 2, nothing sent', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['messages', '--input', writeTemp('bad.json', '[{"role": "user", '), 'hi'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--input: .*bad\.json .*valid JSON/);
    expect(emu.requests()).toEqual([]);
  });

  it('a message that is neither user nor assistant is exit 2', async () => {
    const r = await svcInProcess(
      ['messages', '--input', writeTemp('tool.json', JSON.stringify([{ role: 'tool', content: 'x' }])), 'hi'],
      { emu },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--input: .*tool\.json\[0\] .*role: user\|assistant/);
  });

  it('-c continues the last messages conversation of the profile (kept locally), like chat', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'svc-msg-'));
    emu.clearRequests();
    const first = await svcInProcess(['messages', '-s', 'be brief', 'my name is Ada'], { emu, configDir });
    expect(first.exitCode).toBe(0);
    const second = await svcInProcess(['messages', '-c', 'what is my name?'], { emu, configDir });
    expect(second.exitCode).toBe(0);
    const [, body] = sent();
    expect(body.system).toBe('be brief');
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(body.messages[0].content).toBe('my name is Ada');
    expect(body.messages[2].content).toBe('what is my name?');
    // chat's -c does not pick up the messages conversation, and the other way round
    const chat = await svcInProcess(['chat', '-c', 'hi'], { emu, configDir });
    expect(chat.exitCode).toBe(2);
    expect(chat.stderr).toMatch(/-c: there is no conversation to continue/);
    const list = await svcInProcess(['conversations', 'list'], { emu, configDir });
    const id = /conv_[a-z0-9]+/.exec(list.stdout)![0];
    expect(list.stdout.trim().split('\t').pop()).toBe('messages');
    const show = await svcInProcess(['conversations', 'show'], { emu, configDir });
    expect(
      show.stdout
        .split('\n')
        .filter((l) => /^(system|user|assistant): /.test(l))
        .map((l) => l.split(':')[0]),
    ).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
    const wrong = await svcInProcess(['chat', '--conversation', id, 'hi'], { emu, configDir });
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toContain(
      `is a conversation of svc messages (continue it with svc messages --conversation ${id})`,
    );
    emu.clearRequests();
    const again = await svcInProcess(['messages', '--conversation', id, 'and again'], { emu, configDir });
    expect(again.exitCode).toBe(0);
    expect(sent()[0].messages).toHaveLength(5);
  });

  it('-c with no messages conversation yet is exit 2', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['messages', '-c', 'hi'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/-c: there is no messages conversation to continue/);
    expect(emu.requests()).toEqual([]);
  });
});

describe('svc messages and legacy: small items', () => {
  it('the no-prompt error names the command that was run', async () => {
    for (const [cmd, shown] of [
      [['messages'], 'svc messages "…"'],
      [['legacy', 'completions'], 'svc legacy completions "…"'],
      [['legacy', 'complete'], 'svc legacy complete "…"'],
    ] as const) {
      const r = await svcInProcess([...cmd], { emu, input: '' });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(shown);
      expect(r.stderr).not.toContain('svc chat');
    }
  });

  it('messages --help shows the --max-tokens default once', async () => {
    const r = await svcInProcess(['messages', '--help'], { emu });
    const line = r.stdout.split('\n').find((l) => l.includes('--max-tokens'))!;
    expect(line).toBeDefined();
    expect((r.stdout.match(/1024/g) ?? []).length).toBe(1);
  });
});
