// The REPL's banner and /help at the terminal's width (issue 42, item 2): on real terminals (tmux) of 40, 80 and
// 200 columns no line is wider than the terminal and the text reads whole (broken only between words).
import { describe, expect } from 'vitest';
import { itWithEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { TmuxTerminal } from '../../helpers/terminal.js';

const it = itWithEmulator();

describe.concurrent('svc chat -i: banner and /help fit the terminal', () => {
  for (const cols of [40, 80, 200])
    it(`${cols} columns`, async ({ emu }) => {
      const term = new TmuxTerminal();
      try {
        term.start(['chat', '-i'], { emu, configDir: tempDir(), cols });
        await term.waitFor('Ctrl-D to leave');
        term.keys('-l', '/help');
        term.keys('Enter');
        const screen = await term.waitFor('Ctrl-C cancels the answer in progress.');
        // capture-pane -J joins a row the terminal wrapped: a line too wide shows longer than the terminal
        for (const l of screen.split('\n')) expect(l.trimEnd().length, screen).toBeLessThanOrEqual(cols);
        const text = screen.replace(/\s+/g, ' ');
        expect(text).toMatch(/svc chat · svc-latest · conversation conv_\w+ · \/help, \/exit or Ctrl-D to leave/);
        expect(text).toContain('/save [FILE] save the conversation (and write a transcript to FILE)');
        expect(text).toContain('input: a line ending in \\ continues on the next line;');
        term.keys('-l', '/exit');
        term.keys('Enter');
        await term.waitFor('EXIT=0');
      } finally {
        term.stop();
      }
    });
});
