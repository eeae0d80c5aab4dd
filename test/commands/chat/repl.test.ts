// `svc chat -i` in a real terminal (tmux): turns with the conversation kept, Ctrl-C cancelling the answer in
// progress without leaving the REPL, commands, and /exit.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startTestEmulator, svc, svcEnv, tempDir, type TestEmulator } from '../../helpers/cli.js';

let emu: TestEmulator;
const socket = `svc-repl-test-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const pane = () => tmux('capture-pane', '-p', '-J', '-S', '-200');
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Poll the screen until it shows what is expected (no timing is asserted; the limit only avoids hanging). */
async function waitFor(what: string | RegExp, after = 0): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const screen = pane();
    const rest = screen.slice(after);
    if (typeof what === 'string' ? rest.includes(what) : what.test(rest)) return screen;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the terminal never showed ${String(what)}:\n${pane()}`);
}

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  try {
    tmux('kill-server');
  } catch {
    // already gone
  }
  await emu.close();
});

describe('svc chat -i in a terminal', () => {
  it('two turns with history, one cancelled with Ctrl-C, commands, then /exit', async () => {
    const configDir = tempDir();
    const env = svcEnv({ emu, configDir });
    // the answer the cancelled turn would have given in full
    const full = (await svc(['chat', '--no-save', 'tell me a long story'], { emu, configDir })).stdout.trim();
    const assignments = Object.entries(env)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${quote(v!)}`)
      .join(' ');
    tmux('new-session', '-d', '-x', '120', '-y', '40', `env -i ${assignments} TERM=xterm node ${quote(BIN)} chat -i -s 'You are brief'; echo "EXIT=$?"; sleep 60`);
    await waitFor('svc chat · svc-latest');

    emu.clearRequests();
    tmux('send-keys', 'first question', 'Enter');
    let screen = await waitFor(/answer to "first question"[^\n]*\n[\s\S]*> $/m);

    // a slow answer, cancelled in the middle
    emu.core.settings.tokenDelayMs = 150;
    tmux('send-keys', 'tell me a long story', 'Enter');
    screen = await waitFor('answer to "tell me a long story"', screen.length - 10);
    tmux('send-keys', 'C-c');
    screen = await waitFor('[cancelled]');
    expect(screen).not.toContain(full);
    emu.core.settings.tokenDelayMs = 0;

    // the REPL is still there; a multi-line turn
    tmux('send-keys', 'second\\', 'Enter');
    await waitFor('… ');
    tmux('send-keys', 'question', 'Enter');
    screen = await waitFor(/answer to "second question"/);

    tmux('send-keys', '/model', 'Enter');
    await waitFor('model: svc-latest');
    tmux('send-keys', '/exit', 'Enter');
    screen = await waitFor('EXIT=0');

    // the history went with each turn; the cancelled one left no trace
    const bodies = emu.requests().filter((r) => r.path === '/v1/chat/completions').map((r) => JSON.parse(r.body!));
    expect(bodies).toHaveLength(3);
    const last = bodies[2].messages as { role: string; content: string }[];
    expect(last.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(last[0]!.content).toBe('You are brief');
    expect(last[1]!.content).toBe('first question');
    expect(last[3]!.content).toBe('second\nquestion');
    expect(last.some((m) => m.content.includes('long story'))).toBe(false);

    // the session was kept as a conversation
    const show = await svc(['conversations', 'show', '--json'], { emu, configDir });
    const conv = JSON.parse(show.stdout);
    expect(conv.messages.filter((m: { role: string }) => m.role === 'user').map((m: { content: string }) => m.content)).toEqual(['first question', 'second\nquestion']);
  });

  it('Ctrl-C at an empty prompt asks for a second one, which leaves', async () => {
    const env = svcEnv({ emu });
    const assignments = Object.entries(env)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${quote(v!)}`)
      .join(' ');
    tmux('kill-server');
    tmux('new-session', '-d', '-x', '120', '-y', '40', `env -i ${assignments} TERM=xterm node ${quote(BIN)} chat -i --no-save; echo "EXIT=$?"; sleep 60`);
    await waitFor('svc chat ·');
    tmux('send-keys', '/nonsense', 'Enter');
    await waitFor('unknown command /nonsense');
    tmux('send-keys', 'C-c');
    await waitFor('Ctrl-C again');
    tmux('send-keys', 'C-c');
    await waitFor('EXIT=0');
  });
});
