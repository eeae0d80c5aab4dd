// `svc chat -i` in a real terminal (tmux): turns with the conversation kept, Ctrl-C cancelling the answer in
// progress without leaving the REPL, commands, and /exit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TmuxTerminal } from '../../helpers/terminal.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
const term = new TmuxTerminal();
const waitFor = (what: string | RegExp, after = 0) => term.waitFor(what, after);

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  term.stop();
  await emu.close();
});

describe('svc chat -i in a terminal', () => {
  it('two turns with history, one cancelled with Ctrl-C, commands, then /exit', async () => {
    const configDir = tempDir();
    // the answer the cancelled turn would have given in full
    const full = (await svcInProcess(['chat', '--no-save', 'tell me a long story'], { emu, configDir })).stdout.trim();
    term.start(['chat', '-i', '-s', 'You are brief'], { emu, configDir });
    await waitFor('svc chat · svc-latest');

    emu.clearRequests();
    term.keys('first question', 'Enter');
    let screen = await waitFor(/answer to "first question"[^\n]*\n[\s\S]*> $/m);

    // a slow answer, cancelled in the middle
    emu.core.settings.tokenDelayMs = 150;
    term.keys('tell me a long story', 'Enter');
    screen = await waitFor('answer to "tell me a long story"', screen.length - 10);
    term.keys('C-c');
    screen = await waitFor('[cancelled]');
    expect(screen).not.toContain(full);
    emu.core.settings.tokenDelayMs = 0;

    // the REPL is still there; a multi-line turn
    term.keys('second\\', 'Enter');
    await waitFor('… ');
    term.keys('question', 'Enter');
    screen = await waitFor(/answer to "second question"/);

    term.keys('/model', 'Enter');
    await waitFor('model: svc-latest');
    term.keys('/exit', 'Enter');
    screen = await waitFor('EXIT=0');

    // the history went with each turn; the cancelled one left no trace
    const bodies = emu
      .requests()
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => JSON.parse(r.body!));
    expect(bodies).toHaveLength(3);
    const last = bodies[2].messages as { role: string; content: string }[];
    expect(last.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(last[0]!.content).toBe('You are brief');
    expect(last[1]!.content).toBe('first question');
    expect(last[3]!.content).toBe('second\nquestion');
    expect(last.some((m) => m.content.includes('long story'))).toBe(false);

    // the session was kept as a conversation
    const show = await svcInProcess(['conversations', 'show', '--json'], { emu, configDir });
    const conv = JSON.parse(show.stdout);
    expect(
      conv.messages.filter((m: { role: string }) => m.role === 'user').map((m: { content: string }) => m.content),
    ).toEqual(['first question', 'second\nquestion']);
  });

  it("Tab completes the REPL's own /commands", async () => {
    term.start(['chat', '-i'], { emu, configDir: tempDir() });
    await waitFor('svc chat · svc-latest');
    // one match: Tab writes the command in full
    term.keys('/mo', 'Tab');
    let _screen = await waitFor(/> \/model $/m);
    term.keys('Enter');
    _screen = await waitFor('model: svc-latest');
    // several: the second Tab lists them (readline ignores a Tab that arrives while it completes the first)
    term.keys('/s', 'Tab');
    await new Promise((r) => setTimeout(r, 300));
    term.keys('Tab');
    _screen = await waitFor(/\/system\s+\/save/);
    term.keys('C-u', '/he', 'Tab');
    await waitFor(/> \/help $/m);
    term.keys('Enter');
    await waitFor('Tab completes them');
    // text that is not a command gets no completion
    term.keys('plain words', 'Tab');
    await new Promise((r) => setTimeout(r, 300));
    term.keys('Enter');
    await waitFor('answer to "plain words"');
    term.keys('/ex', 'Tab');
    await waitFor(/> \/exit $/m);
    term.keys('Enter');
    await waitFor('EXIT=0');
  });

  it('Ctrl-C at an empty prompt asks for a second one, which leaves', async () => {
    term.start(['chat', '-i', '--no-save'], { emu });
    await waitFor('svc chat ·');
    term.keys('/nonsense', 'Enter');
    await waitFor('unknown command /nonsense');
    term.keys('C-c');
    await waitFor('Ctrl-C again');
    term.keys('C-c');
    await waitFor('EXIT=0');
  });
});
