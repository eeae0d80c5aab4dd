// `svc chat --tool FILE --tool-cmd NAME=COMMAND`: a real local command runs for each call, results go back as
// tool messages, and the loop ends with the model's answer, at most --max-turns model turns.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir, writeTemp } from '../../helpers/files.js';

let emu: TestEmulator;
let dir: string;
let script: string;
let log: string;
let tool: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir();
  log = join(dir, 'calls.log');
  script = join(dir, 'weather.sh');
  // a real command: reads the arguments JSON on stdin, logs it, answers on stdout
  writeFileSync(script, `#!/bin/sh\nargs=$(cat)\necho "$args" >> ${log}\necho "18C and cloudy"\n`, { mode: 0o755 });
  tool = writeTemp(
    'weather.json',
    JSON.stringify({
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    }),
  );
});
afterAll(() => emu.close());

const chatBodies = () =>
  emu
    .requests()
    .filter((r) => r.path === '/v1/chat/completions')
    .map((r) => JSON.parse(r.body!));

describe('svc chat with local tools', () => {
  it("runs a real local command twice and ends with the model's answer", async () => {
    writeFileSync(log, '');
    emu.clearRequests();
    const r = await svcInProcess(
      [
        'chat',
        '--tool',
        tool,
        '--tool-cmd',
        `get_weather=${script}`,
        'use get_weather for Paris, then get_weather for Rome',
      ],
      { emu },
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^The tool returned 18C and cloudy\. This is the emulator's answer/);
    const calls = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(calls).toHaveLength(2);
    for (const c of calls) expect(typeof c.city).toBe('string');
    const bodies = chatBodies();
    expect(bodies).toHaveLength(3);
    const last = bodies[2].messages;
    const assistantCalls = last.filter((m: any) => m.role === 'assistant' && m.tool_calls);
    const toolMsgs = last.filter((m: any) => m.role === 'tool');
    expect(assistantCalls).toHaveLength(2);
    expect(toolMsgs.map((m: any) => m.content)).toEqual(['18C and cloudy', '18C and cloudy']);
    expect(toolMsgs.map((m: any) => m.tool_call_id)).toEqual(assistantCalls.map((m: any) => m.tool_calls[0].id));
    expect(r.stderr.match(/running get_weather/g)).toHaveLength(2);
  });

  it('--max-turns 1 stops with a clear message and a non-zero exit', async () => {
    writeFileSync(log, '');
    const r = await svcInProcess(
      ['chat', '--tool', tool, '--tool-cmd', `get_weather=${script}`, '--max-turns', '1', 'weather in Oslo?'],
      { emu },
    );
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      'stopped after 1 model turn (--max-turns 1): the model still wanted to call get_weather; raise --max-turns',
    );
    expect(readFileSync(log, 'utf8')).toBe('');
  });

  it('a failing command is reported to the model as an error result and the loop goes on', async () => {
    emu.clearRequests();
    const r = await svcInProcess(
      ['chat', '--tool', tool, '--tool-cmd', 'get_weather=echo broken >&2; exit 3', '--no-stream', 'weather in Lima?'],
      { emu },
    );
    expect(r.exitCode).toBe(0);
    const toolMsg = chatBodies()[1].messages.find((m: any) => m.role === 'tool');
    expect(JSON.parse(toolMsg.content)).toEqual({ error: 'the tool command exited with status 3: broken', output: '' });
    expect(r.stdout).toMatch(/^The tool returned /);
  });

  it('a --tool-cmd without a --tool file gets a permissive definition; the conversation is kept for -c', async () => {
    const configDir = tempDir();
    emu.clearRequests();
    const r = await svcInProcess(['chat', '--tool-cmd', 'today=date +%Y', 'what year is it? use today'], {
      emu,
      configDir,
    });
    expect(r.exitCode).toBe(0);
    expect(chatBodies()[0].tools[0].function).toMatchObject({ name: 'today', parameters: { type: 'object' } });
    expect(r.stdout).toContain(`The tool returned ${new Date().getFullYear()}`);
    const next = await svcInProcess(['chat', '-c', 'thanks'], { emu, configDir });
    expect(next.exitCode).toBe(0);
    const roles = chatBodies()
      .pop()!
      .messages.map((m: any) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
  });
});

const cases: [string, string[], RegExp][] = [
  ['max turns of 0', ['--tool-cmd', 'a=echo', '--max-turns', '0'], /--max-turns: 0 .*from 1 to 100/],
  ['max turns above 100', ['--tool-cmd', 'a=echo', '--max-turns', '101'], /--max-turns: 101 .*from 1 to 100/],
  ['max turns without a tool command', ['--max-turns', '3'], /--max-turns: 3 .*only together with --tool-cmd/],
  ['a tool command without NAME=', ['--tool-cmd', 'echo'], /--tool-cmd: echo .*NAME=COMMAND/],
  ['several choices with a tool loop', ['--tool-cmd', 'a=echo', '-n', '2'], /-n: 2 .*only 1 together with --tool-cmd/],
  ['a deferred tool loop', ['--tool-cmd', 'a=echo', '--deferred'], /--deferred: .*not together with --tool-cmd/],
];

describe('tool loop flags are checked before sending', () => {
  for (const [name, args, message] of cases) {
    it(name, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['chat', ...args, 'hi'], { emu });
      expect(r.stderr).toMatch(message);
      expect(r.exitCode).toBe(2);
      expect(emu.requests()).toHaveLength(0);
    });
  }
});
