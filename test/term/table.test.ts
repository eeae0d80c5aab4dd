// Tables fit the terminal: one line per row at any width, the free text cut first (with …), ids, numbers and dates
// never cut, optional columns left out with a note when even that does not fit; checked on real pseudo-terminals of
// 60 and 120 columns (the width the CLI reads from the terminal) and, in-process on a terminal stream, at 40, 80 and
// 200 columns for every list table (issue 42, item 3), plus the fitting rules themselves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth, fitWidths, renderTable, truncate } from '../../src/term/table.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { tempDir, writeTemp } from '../helpers/files.js';
import { svcOnTerminal } from '../helpers/terminal.js';
import { svcProcess } from '../helpers/subprocess.js';

let emu: TestEmulator;
const configDir = tempDir();
const LONG = 'quarterly-report-for-the-board-with-every-appendix-included-final-v2.pdf';
const ids: string[] = [];

beforeAll(async () => {
  emu = await startTestEmulator();
  for (const name of [LONG, 'a.txt']) {
    const r = await svcInProcess(['files', 'upload', writeTemp(name, 'data'), '--json'], { emu, configDir });
    ids.push(JSON.parse(r.stdout).id);
  }
  expect(
    (await svcInProcess(['chat', 'tell me about the tides of the northern sea'], { emu, configDir })).exitCode,
  ).toBe(0);
});
afterAll(() => emu.close());

/** The lines the terminal showed (a pseudo-terminal's \r\n or a terminal stream's \n), escapes removed. */
const screenLines = (output: string) =>
  output
    .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
    .split(/\r?\n/)
    .filter((l) => l.length > 0);

describe('files ls on a real terminal', () => {
  it('60 columns: a line per row within the width, ids and dates whole, EXPIRES and SIZE left out', async () => {
    const cols = 60;
    const r = await svcOnTerminal(['files', 'ls'], { emu, cols });
    expect(r.exitCode, r.screen).toBe(0);
    const lines = screenLines(r.screen);
    expect(lines[0]).toMatch(/^ID\s+FILEN\S*\s+CREATED$/);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(cols);
    for (const id of ids) expect(r.screen).toContain(id);
    expect(r.screen).toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
    expect(r.screen).not.toContain(LONG);
    expect(r.screen).toContain('quart');
    expect(r.screen).toContain('…');
    expect(r.screen).toContain('not shown at 60 columns: EXPIRES, SIZE');
  });

  it('at 120 columns the long filename gives way first: the dates stay whole', async () => {
    const r = await svcOnTerminal(['files', 'ls'], { emu, cols: 120 });
    const row = screenLines(r.screen).find((l) => l.startsWith(ids[0]!))!;
    expect(row).toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+-$/);
    expect(row).toMatch(/quarterly-report-for-the-board-with-every\S*… /);
  });

  it('in a pipe: tab-separated rows, nothing cut', async () => {
    const r = await svcInProcess(['files', 'ls'], { emu });
    expect(r.stdout).toContain(`\t${LONG}\t`);
  });
});

describe('the width classes', () => {
  // V8 builds a regular expression's Unicode property classes (\p{M}, \p{Extended_Pictographic}) when it makes the
  // expression, ~2 M instructions; this module loads with every command line (the command tree's chunk), so they are
  // made when a width is first measured. V8's --trace-regexp-parser prints each expression it parses: \p{M}'s first
  // range (the combining diacritical marks) is in none of a run that prints no table. (The second run: the first,
  // its code cache made for this flag, parses the bundle's sources, whose literals V8 checks as it parses them.)
  it('are not built by a command line that measures no width', async () => {
    const cache = tempDir();
    const marks = async () => {
      const r = await svcProcess(['chat', '--no-stream', 'hi'], {
        emu,
        nodeArgs: ['--trace-regexp-parser'],
        env: { SVC_CACHE_DIR: cache },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain('This is the emulator');
      return r.stdout.includes('\\u0300-\\u036f');
    };
    await marks();
    expect(await marks()).toBe(false);
    expect(displayWidth('e\u0301\u4e00')).toBe(3);
  });
});

describe('fitting rules', () => {
  const cols = [{ header: 'ID' }, { header: 'NAME' }, { header: 'NOTE' }];

  it('natural widths when they fit', () => {
    expect(fitWidths([5, 10, 8], cols, 40)).toEqual([5, 10, 8]);
    expect(fitWidths([5, 10, 8], cols, Infinity)).toEqual([5, 10, 8]);
  });

  it('the widest flexible column gives way first, then the others alike; ids last', () => {
    expect(fitWidths([5, 30, 10], cols, 5 + 20 + 10 + 4)).toEqual([5, 20, 10]);
    expect(fitWidths([5, 30, 10], cols, 5 + 16 + 4)).toEqual([5, 8, 8]);
    expect(fitWidths([20, 30, 10], cols, 8 + 4 + 4 + 4 + 4)).toEqual([12, 4, 4]);
  });

  it('columns named like ids (ID, REQUEST ID, VOICE_ID) or marked keep give way last', () => {
    const named = [{ header: 'REQUEST ID' }, { header: 'NOTE' }, { header: 'VOICE', keep: true }];
    expect(fitWidths([20, 20, 10], named, 20 + 10 + 10 + 4)).toEqual([20, 10, 10]);
    expect(fitWidths([20, 20], [{ header: 'VOICE_ID' }, { header: 'NOTE' }], 20 + 8 + 2)).toEqual([20, 8]);
  });

  it('truncate ends in … and counts wide characters as two', () => {
    expect(truncate('abcdefgh', 5)).toBe('abcd…');
    expect(truncate('abc', 5)).toBe('abc');
    expect(displayWidth('日本語')).toBe(6);
    expect(truncate('日本語テキスト', 7)).toBe('日本語…');
  });

  it('rows never wrap: every line fits, right-aligned columns pad on the left', () => {
    const { lines } = renderTable(
      [{ header: 'NAME' }, { header: 'SIZE', align: 'right' }],
      [
        ['a-very-long-name-indeed', '10 B'],
        ['b', '2.0 KiB'],
      ],
      20,
    );
    expect(lines).toEqual(['NAME            SIZE', 'a-very-lon…     10 B', 'b            2.0 KiB']);
  });
});

/** The ids, numbers and dates a list printed with --json: each must show whole on the terminal. */
async function wholeValues(args: string[]): Promise<string[]> {
  const r = await svcInProcess([...args, '--json', '--no-log'], { emu, configDir });
  expect(r.exitCode, r.stderr).toBe(0);
  const rows = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return rows.flatMap((row) =>
    ['id', 'calls', 'total_tokens'].filter((k) => row[k] !== undefined).map((k) => String(row[k])),
  );
}

describe.concurrent('list tables at 40, 80 and 200 columns (issue 42, item 3)', () => {
  const LISTS = [['files', 'list'], ['models', 'list'], ['usage'], ['logs']];
  for (const args of LISTS)
    for (const cols of [40, 80, 200])
      it(`${args.join(' ')} at ${cols}: every line fits, one line per row, ids and numbers whole`, async () => {
        const whole = await wholeValues(args);
        expect(whole.length).toBeGreaterThan(0);
        // the table as a terminal of `cols` shows it: stdout, then stderr's note (the real terminal's width: above)
        const run = await svcInProcess([...args, '--no-log'], { emu, configDir, tty: true, columns: cols });
        const r = { exitCode: run.exitCode, screen: run.stdout + run.stderr };
        expect(r.exitCode, r.screen).toBe(0);
        const lines = screenLines(r.screen);
        for (const l of lines) expect(displayWidth(l), `${l}\n${r.screen}`).toBeLessThanOrEqual(cols);
        for (const v of whole)
          expect(
            lines.some((l) => new RegExp(`(^|\\s)${v}(\\s|$)`).test(l)),
            `${v}\n${r.screen}`,
          ).toBe(true);
        // a date shows whole or not at all
        expect(r.screen).not.toMatch(/\d{4}-\d\d-\d\d(?:T\d\d?)?…/);
        const note = lines.findIndex((l) => l.startsWith('not shown at'));
        if (cols === 40 && args[0] !== 'models') {
          // what was left out is said, and the note is wrapped at word boundaries
          expect(note, r.screen).toBeGreaterThan(0);
          const text = lines.slice(note).join(' ');
          expect(text).toMatch(/^not shown at 40 columns: [A-Z ,$/]+ \(a wider terminal or --json shows them\)$/);
        }
        if (cols === 200) expect(note, r.screen).toBe(-1);
      });
});
