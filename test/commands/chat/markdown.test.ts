// Markdown rendered while the answer streams (issue 16.4): on a real terminal (tmux) the finished blocks show
// styled while the rest of the answer is still arriving; in a pipe, with --raw and with NO_COLOR the text is
// printed as the model wrote it. The emulator answers with the ```markdown block of the prompt
// (packages/emulator/README.md). The tests run at once, each with an emulator of its own.
import { afterAll, describe, expect } from 'vitest';
import { TmuxTerminal, svcOnTerminal } from '../../helpers/terminal.js';
import { itWithEmulator } from '../../helpers/emulator.js';
import { svcBytes } from '../../helpers/subprocess.js';

const TAIL_WORDS = 200;
const ANSWER = [
  '## Release notes',
  '',
  'Some **bold** words and a [link](https://example.com/docs).',
  '',
  '- first item',
  '- second item',
  '',
  '```js',
  'const answer = 42; // the answer',
  '```',
  '',
  '> a quote',
  '',
  '| name | size |',
  '|------|-----:|',
  '| a    |    1 |',
  '',
  `${Array.from({ length: TAIL_WORDS }, (_, i) => `tail${i}`).join(' ')} FINALWORD`,
  '',
].join('\n');
const PROMPT = `Repeat this:\n~~~markdown\n${ANSWER}~~~\n`;

const it = itWithEmulator();
const term = new TmuxTerminal();
// colour on: the suite's default environment sets NO_COLOR
const COLOR = { NO_COLOR: '' };

afterAll(() => term.stop());

describe.concurrent('svc chat renders Markdown on a terminal as it streams', () => {
  it('shows the heading, list and code block styled while the answer is still arriving', async ({ emu }) => {
    // 12 ms a token: the 200-word last paragraph takes ~3 s to arrive; the screen is read every 100 ms
    emu.core.settings.tokenDelayMs = 12;
    term.start(['chat', '--no-save', PROMPT], { emu, env: COLOR });
    // the code block is complete long before the 200-word last paragraph has arrived
    await term.waitFor(/│ const answer/);
    const styled = term.screen({ escapes: true });
    const screen = term.screen();
    // still arriving: the last paragraph (printed when the answer ends) is not there and the command runs on
    expect(screen).not.toContain('FINALWORD');
    expect(screen).not.toContain('EXIT=');
    // rendered: no Markdown markers, bullets, a framed and highlighted code block
    expect(screen).toMatch(/^Release notes$/m);
    expect(screen).not.toContain('## ');
    expect(screen).toMatch(/^• first item$/m);
    expect(screen).toMatch(/^• second item$/m);
    expect(screen).toMatch(/^┌ js$/m);
    expect(screen).toMatch(/^│ const answer = 42; \/\/ the answer$/m);
    expect(screen).not.toContain('```');
    expect(screen).toContain('Some bold words and a link (https://example.com/docs).');
    // styled (tmux re-emits the styles as separate SGR sequences): the heading and bold words bold, the keyword
    // magenta
    expect(styled).toMatch(/\x1b\[[0-9;]*1[0-9;]*m[^\n]*Release notes/);
    expect(styled).toMatch(/\x1b\[[0-9;]*1[0-9;]*mbold/);
    expect(styled).toMatch(/\x1b\[35m(?:\x1b\[[0-9;]*m)*const/);
    // the 200-word last paragraph shows as it arrives, before its block is complete (issue 25, item 21)
    const arriving = await term.waitFor(/tail1\d\b/);
    expect(arriving).not.toContain('FINALWORD');
    expect(arriving).not.toContain('EXIT=');
    const end = await term.waitFor('EXIT=0');
    expect(end).toContain('FINALWORD');
    expect(end).toMatch(/^│ a quote$/m);
    expect(end).toMatch(/^name │ size$/m);
    expect(end).toMatch(/^a    │    1$/m);
  }, 60_000);

  it('prints the answer byte for byte in a pipe, and with --raw or NO_COLOR on a terminal', async ({ emu }) => {
    const piped = await svcBytes(['chat', '--no-save', PROMPT], { emu, env: COLOR });
    expect(piped.exitCode).toBe(0);
    expect(piped.stdout.toString('utf8')).toBe(ANSWER);
    const raw = await svcOnTerminal(['chat', '--no-save', '--raw', PROMPT], { emu, env: COLOR, cols: 200 });
    expect(raw.exitCode).toBe(0);
    expect(raw.screen).toContain('## Release notes');
    expect(raw.screen).toContain('```js');
    expect(raw.screen).not.toContain('\x1b[');
    const noColor = await svcOnTerminal(['chat', '--no-save', PROMPT], { emu, cols: 200 });
    expect(noColor.screen).toContain('- first item');
    expect(noColor.screen).not.toContain('\x1b[');
  }, 60_000);

  it('keeps server escapes harmless: controls in the answer become visible stand-ins', async ({ emu }) => {
    const hostile = '# Title \x1b]0;pwned\x07\n\ntext \x1b[2J here\n';
    const r = await svcOnTerminal(['chat', '--no-save', `~~~markdown\n${hostile}~~~\n`], {
      emu,
      env: COLOR,
      cols: 200,
    });
    expect(r.exitCode).toBe(0);
    expect(r.screen).not.toContain('\x1b]0;');
    expect(r.screen).not.toContain('\x1b[2J');
    expect(r.screen).toContain('␛]0;pwned␇');
    expect(r.screen).toContain('␛[2J');
  }, 60_000);
});

describe.concurrent('Ctrl-C while an answer streams (issue 42, item 5)', () => {
  const WORDS = Array.from({ length: 120 }, (_, i) => `w${i}`).join(' ');
  for (const cols of [40, 80, 200])
    it(`${cols} columns: the dim line in progress is erased, the text printed once`, async ({ emu }) => {
      emu.core.settings.tokenDelayMs = 20;
      const own = new TmuxTerminal();
      try {
        own.start(['chat', '--no-save', `Repeat this:\n~~~markdown\nFirst para.\n\n${WORDS}\n~~~\n`], {
          emu,
          env: COLOR,
          cols,
        });
        // the line in progress is wider than the terminal: its preview takes the whole row it may
        await own.waitFor(/w6\d\b/);
        own.keys('C-c');
        const screen = await own.waitFor('EXIT=130');
        // the terminal's echo of ^C went onto the preview's row, which was then erased: nothing dim is left
        expect(own.screen({ escapes: true })).not.toContain('\x1b[2m');
        expect(screen).not.toContain('^');
        const lines = screen.split('\n');
        for (const l of lines) expect(l.length, screen).toBeLessThanOrEqual(cols);
        expect(
          lines.filter((l) => /^w0 w1 /.test(l)),
          screen,
        ).toHaveLength(1);
        expect(screen.match(/\bw20\b/g), screen).toHaveLength(1);
      } finally {
        own.stop();
      }
    }, 60_000);
});
