// Tables fit the terminal: one line per row at any width, the widest flexible column cut first (with …), ids
// kept whole; checked on real pseudo-terminals of 60 and 120 columns, plus the fitting rules themselves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth, fitWidths, renderTable, truncate } from '../../src/term/table.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { writeTemp } from '../helpers/files.js';
import { svcOnTerminal } from '../helpers/terminal.js';

let emu: TestEmulator;
const LONG = 'quarterly-report-for-the-board-with-every-appendix-included-final-v2.pdf';
const ids: string[] = [];

beforeAll(async () => {
  emu = await startTestEmulator();
  for (const name of [LONG, 'a.txt']) {
    const r = await svcInProcess(['files', 'upload', writeTemp(name, 'data'), '--json'], { emu });
    ids.push(JSON.parse(r.stdout).id);
  }
});
afterAll(() => emu.close());

/** The lines the terminal showed, escapes removed. */
const screenLines = (output: string) =>
  output
    .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
    .split('\r\n')
    .filter((l) => l.length > 0);

describe('files ls on a real terminal', () => {
  for (const cols of [60, 120]) {
    it(`${cols} columns: one line per row, none wider than the terminal, ids whole`, async () => {
      const r = await svcOnTerminal(['files', 'ls'], { emu, cols });
      expect(r.exitCode, r.screen).toBe(0);
      const lines = screenLines(r.screen);
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(/^ID\s+FILEN\S*\s+SIZE\s+CREAT\S*\s+EXPIRES$/);
      for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(cols);
      for (const id of ids) expect(r.screen).toContain(id);
      expect(r.screen).not.toContain(LONG);
      expect(r.screen).toContain('quart');
      expect(r.screen).toContain('…');
    });
  }

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
    const lines = renderTable(
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
