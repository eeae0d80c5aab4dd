// Help at the terminal's real width (issue 42, item 2): on real pseudo-terminals of 40, 80 and 200 columns every
// line fits and no word is broken (the words are those of the page in a pipe, only the line breaks differ); the
// launcher's page and commander's rendering in the CLI agree at each width. A help topic (`svc help globals`) is the
// CLI's own, not a page of the launcher: it is laid out in-process on a terminal stream of each width.
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/term/table.js';
import { svcInProcess } from '../helpers/in-process.js';
import { svcOnTerminal } from '../helpers/terminal.js';

const PAGES = [
  ['--help'],
  ['chat', '--help'],
  ['files', 'list', '--help'],
  ['realtime', 'talk', '--help'],
  ['help', 'globals'],
  ['help', 'exit-codes'],
];
const words = (text: string) => text.split(/\s+/).filter(Boolean);

describe.concurrent('help laid out for the real width', () => {
  for (const args of PAGES)
    for (const cols of [40, 80, 200])
      it(`svc ${args.join(' ')} at ${cols} columns: every line fits, every word whole`, async () => {
        const piped = await svcInProcess(args);
        expect(piped.exitCode, piped.stderr).toBe(0);
        const topic = args[0] === 'help';
        const r = topic
          ? await svcInProcess(args, { tty: true, columns: cols }).then((t) => ({
              exitCode: t.exitCode,
              screen: t.stdout,
            }))
          : await svcOnTerminal(args, { cols });
        expect(r.exitCode, r.screen).toBe(0);
        const lines = r.screen.split(/\r?\n/);
        for (const l of lines) expect(displayWidth(l), `${l}\n${r.screen}`).toBeLessThanOrEqual(cols);
        expect(words(r.screen)).toEqual(words(piped.stdout));
        // the launcher's fast page and the CLI's commander agree
        if (args.at(-1) === '--help' && args.length > 1) {
          const rendered = await svcInProcess(args, { tty: true, columns: cols });
          // (script drops the last line end)
          expect(r.screen).toBe(rendered.stdout.replace(/\n/g, '\r\n').replace(/\r\n$/, ''));
        }
      });

  it('at 40 columns a description goes under its term when the terms leave it too little room', async () => {
    const r = await svcOnTerminal(['chat', '--help'], { cols: 40 });
    expect(r.screen).toMatch(/\r\n {2}--max-completion-tokens <n>\r\n {6}cap on visible output tokens/);
  });
});
