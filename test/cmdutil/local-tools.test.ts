// The local tool runner shared by chat, responses and the realtime commands.
import { describe, expect, it } from 'vitest';
import {
  MaxTurnsError,
  parseToolCmd,
  runCalls,
  runToolCommand,
  toolCmdParser,
  unboundCalls,
} from '../../src/cmdutil/local-tools.js';

describe('parseToolCmd', () => {
  it('splits NAME=COMMAND at the first =', () => {
    expect(parseToolCmd('get_weather=./w.sh --units=metric')).toEqual({
      name: 'get_weather',
      command: './w.sh --units=metric',
    });
  });

  it('refuses a missing name or command, and names that are not function names', () => {
    expect(() => parseToolCmd('=cmd')).toThrow(/NAME=COMMAND/);
    expect(() => parseToolCmd('name=')).toThrow(/NAME=COMMAND/);
    expect(() => parseToolCmd('no-equals')).toThrow(/NAME=COMMAND/);
    expect(() => parseToolCmd('bad name=cmd')).toThrow(/letters, digits/);
    expect(() => toolCmdParser('a=cat', '--tool-cmd', [{ name: 'a', command: 'echo' }])).toThrow(/given twice/);
  });
});

describe('runToolCommand', () => {
  it('passes the arguments JSON on stdin and returns stdout trimmed', async () => {
    expect(await runToolCommand('cat', '{"city":"Paris"}')).toBe('{"city":"Paris"}');
    expect(await runToolCommand('printf "  spaced \\n\\n"', '{}')).toBe('spaced');
  });

  it('runs in a shell: pipes and variables work', async () => {
    expect(await runToolCommand('tr a-z A-Z | rev', 'abc')).toBe('CBA');
  });

  it('a non-zero exit is an error result with the status and stderr, not an exception', async () => {
    const out = JSON.parse(await runToolCommand('echo partial; echo oops >&2; exit 4', '{}'));
    expect(out).toEqual({ error: 'the tool command exited with status 4: oops', output: 'partial' });
  });

  it('a command that does not exist is an error result', async () => {
    const out = JSON.parse(await runToolCommand('definitely-not-a-command-xyz', '{}'));
    expect(out.error).toMatch(/status 127/);
  });

  it('a command that ignores its stdin still works', async () => {
    expect(await runToolCommand('echo fixed', 'x'.repeat(200_000))).toBe('fixed');
  });

  it('a timeout is an error result', async () => {
    const out = JSON.parse(await runToolCommand('sleep 5', '{}', { timeoutMs: 200 }));
    expect(out.error).toMatch(/timed out/);
  });

  it('an abort rejects', async () => {
    const ac = new AbortController();
    const p = runToolCommand('sleep 5', '{}', { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    await expect(p).rejects.toThrow(/interrupted/);
  });
});

describe('runCalls', () => {
  it('runs each bound call in order and reports unbound ones', async () => {
    const commands = [{ name: 'echo_args', command: 'cat' }];
    const calls = [
      { id: 'c1', name: 'echo_args', arguments: '{"n":1}' },
      { id: 'c2', name: 'echo_args', arguments: '{"n":2}' },
    ];
    expect(await runCalls(calls, commands)).toEqual([
      { id: 'c1', output: '{"n":1}' },
      { id: 'c2', output: '{"n":2}' },
    ]);
    expect(unboundCalls([...calls, { id: 'c3', name: 'other', arguments: '{}' }], commands).map((c) => c.id)).toEqual([
      'c3',
    ]);
    expect(new MaxTurnsError(2, calls).message).toContain(
      'stopped after 2 model turns (--max-turns 2): the model still wanted to call echo_args',
    );
  });
});

describe('the environment of a tool command', () => {
  it(
    'has no svc secret: the model chooses the arguments, the command must not be able to hand the ' + 'key on',
    async () => {
      const env = {
        PATH: process.env.PATH,
        SVC_API_KEY: 'svc-secret-key',
        SVC_WEBHOOK_SECRET: 'whsec',
        SVC_PROFILE: 'work',
        OTHER_TOKEN: 'kept',
      };
      const out = await runToolCommand('env', '{}', { env });
      expect(out).not.toMatch(/svc-secret-key|whsec|SVC_API_KEY|SVC_WEBHOOK_SECRET/);
      expect(out).toMatch(/SVC_PROFILE=work/);
      expect(out).toMatch(/OTHER_TOKEN=kept/);
    },
  );
});
