// The block-by-block renderer: what is printed after each streamed piece (only finished blocks), and the text
// printed once the stream ends.
import { describe, expect, it } from 'vitest';
import { MarkdownStream } from '../../src/term/markdown.js';
import { NO_COLORS, type Colors } from '../../src/term/color.js';
import { displayWidth } from '../../src/term/table.js';
import { itWithEmulator } from '../helpers/emulator.js';
import { svcOnTerminal } from '../helpers/terminal.js';

// visible markers instead of colour codes, so that the styles can be asserted as text
const tag = (name: string) => (s: string) => `<${name}>${s}</${name}>`;
const MARKS: Colors = {
  ...NO_COLORS,
  enabled: true,
  bold: tag('b'),
  dim: (s) => s,
  italic: tag('i'),
  underline: tag('u'),
  cyan: tag('c'),
  magenta: tag('m'),
  green: tag('g'),
  yellow: tag('y'),
};

async function feed(pieces: string[]): Promise<{ afterEach: string[]; final: string }> {
  let printed = '';
  const md = new MarkdownStream(MARKS, (t) => (printed += t));
  const afterEach: string[] = [];
  for (const p of pieces) {
    await md.push(p);
    afterEach.push(printed);
  }
  await md.end();
  return { afterEach, final: printed };
}

describe('MarkdownStream', () => {
  it(
    'prints a heading when its line ends, a paragraph at the blank line, nothing of the block in ' + 'progress',
    async () => {
      const { afterEach, final } = await feed(['# Ti', 'tle\n', 'Some *em', '* text', '\n', '\n', 'tail']);
      expect(afterEach[0]).toBe('');
      expect(afterEach[1]).toBe('<b><u>Title</u></b>\n');
      expect(afterEach[4]).toBe(afterEach[1]); // the paragraph may go on
      expect(afterEach[5]).toBe('<b><u>Title</u></b>\n\nSome <i>em</i> text\n');
      expect(afterEach[6]).toBe(afterEach[5]);
      expect(final).toBe(`${afterEach[5]}\ntail\n`);
    },
  );

  it('holds a fenced block across blank lines until its closing fence, then highlights it', async () => {
    const { afterEach, final } = await feed(['```ts\n', 'const a = 1;\n', '\n', 'let b = "x";\n', '```\n', 'after']);
    expect(afterEach[3]).toBe('');
    expect(afterEach[4]).toBe('┌ ts\n│ <m>const</m> a = <y>1</y>;\n│ \n│ <m>let</m> b = <g>"x"</g>;\n');
    expect(final).toContain('\nafter\n');
  });

  it('a fence inside a longer fence does not close it; an unknown language stays plain; lists and tables', async () => {
    const { final } = await feed([
      '````md\n```\ninner\n```\n````\n',
      '\n',
      '```nosuchlang\nx <y>\n```\n',
      '\n1. one\n2. two\n- [x] done\n\n| a | b |\n|---|--:|\n| 10 | 2 |\n',
    ]);
    expect(final).toContain('│ ```\n│ inner\n│ ```\n');
    expect(final).toContain('│ x <y>\n');
    expect(final).toContain('<c>1.</c> one\n<c>2.</c> two\n');
    expect(final).toContain('<c>•</c> ☑ done');
    // columns measured on the text (the markers here stand for zero-width SGR codes)
    expect(final).toContain('<b>a</b> │ <b>b</b>\n───┼──\n10 │ 2\n');
  });

  it('makes controls visible before styling', async () => {
    const { final } = await feed(['# a\x1b]0;t\x07\n']);
    expect(final).toBe('<b><u>a␛]0;t␇</u></b>\n');
  });
});

describe('MarkdownStream with a live preview (issue 25, item 21)', () => {
  /** A terminal of `cols` columns that applies svc's two sequences (\r, up N, clear to the end) to its rows. */
  function screen(cols: number) {
    let rows: string[] = [''];
    let row = 0;
    const put = (text: string) => {
      for (const ch of text) {
        if (ch === '\n') {
          row++;
          rows[row] ??= '';
        } else {
          if (rows[row]!.length === cols) {
            row++;
            rows[row] ??= '';
          }
          rows[row] += ch;
        }
      }
    };
    return {
      write: put,
      control: (seq: string) => {
        const up = /\x1b\[(\d+)A/.exec(seq);
        row -= up ? Number(up[1]) : 0;
        rows = rows.slice(0, row + 1);
        rows[row] = ''; // \r then clear to the end of the screen
      },
      columns: () => cols,
      text: () => rows.join('\n'),
    };
  }

  it('shows the line in progress as it arrives, then replaces it with the rendered block', async () => {
    const term = screen(20);
    const md = new MarkdownStream(MARKS, term.write, term);
    await md.push('Some *em');
    expect(term.text()).toBe('Some *em'); // not a blank screen while the block streams
    await md.push('* text that wraps over the width of the terminal');
    // one row, never wrapped: the newest characters of the line in progress
    expect(term.text()).toBe('Some *em* text that wraps over the width of the terminal'.slice(-17));
    await md.push('\n\nNext');
    // the preview was erased and the rendered paragraph printed; the new block's line shows below it
    const rendered = 'Some <i>em</i> text that wraps over the width of the terminal\n';
    const ref = screen(20);
    ref.write(`${rendered}Next`);
    expect(term.text()).toBe(ref.text());
    await md.end();
    const done = screen(20);
    done.write(`${rendered}\nNext\n`);
    expect(term.text()).toBe(done.text());
  });

  it('without a live preview (a pipe, TERM=dumb) nothing of the block in progress is written', async () => {
    const { afterEach } = await feed(['Some *em', '* text']);
    expect(afterEach).toEqual(['', '']);
  });
});

describe.concurrent('rendered Markdown at 40, 80 and 200 columns on a real terminal (issue 42, item 1)', () => {
  const PARAGRAPH =
    'Tides rise and fall twice a day because the moon pulls the oceans toward itself while the earth turns ' +
    'beneath them, and the sun adds its smaller pull at new and full moon.';
  const ITEM = 'a list item long enough to wrap onto a second line at every narrow width, keeping its indent';
  const CODE = `const line = '${'x'.repeat(230)}'; // ends far beyond the bar`;
  const ANSWER = [
    PARAGRAPH,
    '',
    `- ${ITEM}`,
    '- short',
    '',
    '```js',
    CODE,
    '```',
    '',
    '| file | notes about it | size |',
    '|------|------|-----:|',
    `| 日本語ファイル | ${'a cell with many words in it '.repeat(3).trim()} | 12345 |`,
    '| plain.txt | short | 7 |',
    '',
  ].join('\n');
  const itEmu = itWithEmulator((emu) => {
    emu.core.settings.tokenDelayMs = 0;
  });

  for (const cols of [40, 80, 200])
    itEmu(
      `${cols} columns: every line fits, words whole, list indent kept, code cut, table aligned`,
      async ({ emu }) => {
        const r = await svcOnTerminal(['chat', '--no-save', `Repeat this:\n~~~markdown\n${ANSWER}~~~\n`], {
          emu,
          cols,
          env: { NO_COLOR: '' },
        });
        expect(r.exitCode, r.screen).toBe(0);
        // what stays on the screen: the escapes removed, each row as it is after its last carriage return
        const rows = r.screen
          .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
          .split('\r\n')
          .map((l) => l.split('\r').at(-1)!);
        for (const l of rows) expect(displayWidth(l), `${l}\n${rows.join('\n')}`).toBeLessThanOrEqual(cols);
        const words = rows.join(' ').split(/\s+/);
        for (const w of [...PARAGRAPH.split(' '), ...ITEM.split(' ')]) expect(words, w).toContain(w);
        // the wrapped item's next lines under its text, not under the bullet
        const item = rows.findIndex((l) => l.startsWith('• a list item'));
        if (cols < 100) expect(rows[item + 1]).toMatch(/^ {2}\S/);
        else expect(rows[item]).toBe(`• ${ITEM}`);
        // the code line cut inside its bar, with a marker, never wrapped under it
        const code = rows.filter((l) => l.startsWith('│ const line'));
        expect(code).toHaveLength(1);
        expect(code[0]).toMatch(/…$/);
        expect(rows.filter((l) => /^x+'; \/\//.test(l))).toEqual([]);
        // the table: one line per row, the separators aligned whatever the characters' width (CJK counts 2)
        const table = rows.filter((l) => / │ /.test(l));
        expect(table).toHaveLength(3);
        const bars = (l: string) => {
          const cells = l.split('│');
          return cells.slice(0, -1).map((_, i) => displayWidth(cells.slice(0, i + 1).join('│')));
        };
        for (const l of table) expect(bars(l)).toEqual(bars(table[0]!));
        expect(table.some((l) => l.includes('日本語ファイル'))).toBe(true);
        expect(table.some((l) => l.includes('12345'))).toBe(true);
      },
    );
});
