// --approve in a voice session (realtime talk, calls join): chat's question before each --tool-cmd / --mcp call, on a
// real terminal (tmux); a no sends chat's DECLINED output to the model and runs nothing. Without push-to-talk a line
// answers; with push-to-talk one key, read by the talk keys' reader. Refused where nobody can answer.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { ROOT, tempDir } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { TmuxTerminal } from '../../helpers/terminal.js';
import type { TestEmulator } from '../../helpers/emulator.js';
import { clipPcm, fakeArecord, lastSession, talking, wavClip } from './talk-helpers.js';

const SERVER = `node ${join(ROOT, 'test', 'fixtures', 'mcp', 'two-tools.mjs')}`;
const DECLINED = '{"error":"the user declined this call"}';
const QUESTION = /run city_facts \{"city":"[^"]*"\}\? \[y\/N\] /;

/** A tool command that logs its input to `ran` and answers "shipped yesterday". */
function orderStatus(): { cmd: string; ran: string } {
  const dir = tempDir('svc-approve-');
  const ran = join(dir, 'ran.log');
  writeFileSync(join(dir, 'status.sh'), `#!/bin/sh\ncat >> ${ran}\necho >> ${ran}\necho shipped yesterday\n`);
  return { cmd: `order_status=sh ${join(dir, 'status.sh')}`, ran };
}

async function onTerminal(fn: (term: TmuxTerminal) => Promise<void>): Promise<void> {
  const term = new TmuxTerminal();
  try {
    await fn(term);
  } finally {
    term.stop();
  }
}

async function startCall(emu: TestEmulator, script: string[]): Promise<string> {
  const res = await fetch(`${emu.url}/_emulator/calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ caller_script: script }),
  });
  return ((await res.json()) as { call: { call_id: string } }).call.call_id;
}

describe.concurrent('--approve in a voice session, on a terminal', () => {
  talking(
    'talk --mcp: the question comes before the call; a no is told to the model, the server is not called',
    ({ emu }) =>
      onTerminal(async (term) => {
        const input = wavClip('approve-mcp.wav', [{ silence: 200 }, { say: 'please use the city facts tool' }]);
        const log = join(tempDir('svc-approve-'), 'calls.log');
        const out = join(tempDir(), 'answer.wav');
        term.start(['realtime', 'talk', '--approve', '--mcp', SERVER, '--input', input, '--output', out], {
          emu,
          env: { MCP_TEST_LOG: log },
        });
        await term.waitFor(QUESTION);
        // nothing went back while the question waited
        expect(lastSession(emu).function_outputs).toEqual([]);
        term.keys('n', 'Enter');
        const screen = await term.waitFor(/EXIT=\d+/);
        expect(screen).toContain('EXIT=0');
        const session = lastSession(emu);
        const call = session.responses[0]!.function_call!;
        expect(call.name).toBe('city_facts');
        expect(session.function_outputs).toEqual([{ call_id: call.call_id, output: DECLINED }]);
        expect(existsSync(log)).toBe(false);
        expect(screen).toContain('(tool city_facts declined)');
        expect(screen).toContain(`assistant: The city_facts tool says: ${DECLINED}`);
      }),
  );

  talking('calls join --tool-cmd: each call is asked about; y runs it, n declines the next', ({ emu }) =>
    onTerminal(async (term) => {
      const { cmd, ran } = orderStatus();
      const id = await startCall(emu, ['what is my order status', 'check the order status again']);
      term.start(['calls', 'join', id, '--approve', '--tool-cmd', cmd], { emu, cols: 160 });
      await term.waitFor(/run order_status \{.*\}\? \[y\/N\] /);
      term.keys('y', 'Enter');
      const yes = 'agent: The order_status tool says: shipped yesterday';
      let screen = await term.waitFor(yes);
      await term.waitFor(/run order_status \{.*\}\? \[y\/N\] /, screen.indexOf(yes));
      term.keys('n', 'Enter');
      screen = await term.waitFor(/EXIT=\d+/);
      expect(screen).toContain('EXIT=0');
      const no = `agent: The order_status tool says: ${DECLINED}`;
      expect(screen.indexOf(no)).toBeGreaterThan(screen.indexOf(yes));
      const session = lastSession(emu);
      expect(session.call_id).toBe(id);
      expect(session.function_outputs.map((o) => o.output)).toEqual(['shipped yesterday', DECLINED]);
      // the command ran once: for the yes
      expect(readFileSync(ran, 'utf8').trim().split('\n')).toHaveLength(1);
    }),
  );

  talking('push-to-talk: one key answers, through the talk keys (y runs the call); q still quits', ({ emu }) =>
    onTerminal(async (term) => {
      const dir = tempDir('svc-ptt-approve-');
      fakeArecord(dir, clipPcm([{ say: 'use the order status tool' }, { silence: 300 }]));
      const { cmd, ran } = orderStatus();
      const out = join(dir, 'answer.wav');
      term.start(['realtime', 'talk', '--push-to-talk', '--approve', '--tool-cmd', cmd, '--output', out], {
        emu,
        env: { PATH: `${dir}:${process.env.PATH}` },
        cols: 160,
      });
      await term.waitFor('hold space to talk');
      term.keys('Space');
      await term.waitFor('(talking… release space to send)');
      writeFileSync(join(dir, 'go'), '');
      for (let i = 0; i < 300 && !existsSync(join(dir, 'done')); i++) await new Promise((r) => setTimeout(r, 50));
      term.keys('Space');
      await term.waitFor(/run order_status \{.*\}\? \[y\/N\] /);
      // one key, no Enter: raw mode
      term.keys('y');
      let screen = await term.waitFor('assistant: The order_status tool says: shipped yesterday');
      expect(screen).toMatch(/run order_status \{.*\}\? \[y\/N\] yes/);
      expect(existsSync(ran)).toBe(true);
      term.keys('q');
      screen = await term.waitFor(/EXIT=\d+/);
      expect(screen).toContain('EXIT=0');
      expect(lastSession(emu).function_outputs.map((o) => o.output)).toEqual(['shipped yesterday']);
    }),
  );

  talking('Ctrl-C at the question ends the session: the call is not run, nothing goes back', ({ emu }) =>
    onTerminal(async (term) => {
      const dir = tempDir('svc-mic-approve-');
      fakeArecord(dir, clipPcm([{ say: 'use the order status tool' }, { silence: 1000 }]));
      writeFileSync(join(dir, 'go'), '');
      const { cmd, ran } = orderStatus();
      const out = join(dir, 'answer.wav');
      term.start(['realtime', 'talk', '--approve', '--tool-cmd', cmd, '--output', out], {
        emu,
        env: { PATH: `${dir}:${process.env.PATH}` },
        cols: 160,
      });
      await term.waitFor(/run order_status \{.*\}\? \[y\/N\] /);
      term.keys('C-c');
      const screen = await term.waitFor(/EXIT=\d+/);
      expect(screen).toContain('EXIT=0');
      // the question's line is closed before the note (the status line was held while it waited)
      expect(screen).toMatch(/\[y\/N\] (\^C)?\n\(ending the session; Ctrl-C again to quit at once\)\nsession ended/);
      expect(existsSync(ran)).toBe(false);
      expect(lastSession(emu).function_outputs).toEqual([]);
    }),
  );
});

describe.concurrent('--approve refused where nobody can answer (exit 2, nothing sent)', () => {
  talking(
    'with --input - (stdin carries the audio), without tools, with --no-input, off a terminal',
    async ({ emu }) => {
      const { cmd } = orderStatus();
      const cases: [string[], RegExp][] = [
        [
          ['realtime', 'talk', '--approve', '--tool-cmd', cmd, '--input', '-', '--output', '-'],
          /--approve: with --input - is not allowed: a terminal to ask on, and stdin carries the audio/,
        ],
        [
          ['realtime', 'talk', '--approve', '--input', wavClip('a.wav', [{ silence: 100 }]), '--output', '-'],
          /--approve: set is not allowed: only together with --tool-cmd or --mcp/,
        ],
        [['realtime', 'talk', '--approve', '--no-input', '--tool-cmd', cmd], /--approve asks before each tool call/],
        [
          ['calls', 'join', 'rtc_x', '--approve', '--mcp', SERVER],
          /--approve: stdin is not a terminal to ask on \(nothing was sent\)/,
        ],
      ];
      for (const [args, message] of cases) {
        emu.clearRequests();
        const r = await svcInProcess(args, { emu });
        expect(r.exitCode, String(r.stderr)).toBe(2);
        expect(r.stderr).toMatch(message);
        expect(emu.requests()).toEqual([]);
      }
      // calls listen joins several calls at once: no question on one terminal for them
      const listen = await svcInProcess(['calls', 'listen', '--join', '--approve'], { emu });
      expect(listen.exitCode).toBe(2);
      expect(listen.stderr).toMatch(/--approve/);
    },
  );
});
