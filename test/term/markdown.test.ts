// The block-by-block renderer: what is printed after each streamed piece (only finished blocks), and the text
// printed once the stream ends.
import { describe, expect, it } from 'vitest';
import { MarkdownStream } from '../../src/term/markdown.js';
import { NO_COLORS, type Colors } from '../../src/term/color.js';

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
    expect(term.text()).toBe('Some *em* text that wraps over the width of the terminal'.slice(-19));
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
