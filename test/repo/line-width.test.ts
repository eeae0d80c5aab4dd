// Every line of code keeps Biome's width (biome.json: 120). Biome wraps code but not a string, a comment or a template
// literal's text, so this test holds those too. The one exception is a line that is a regular expression literal alone:
// cut in two it would be two patterns joined at run time, harder to read than the long line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/files.js';
import { readSourceGraph } from '../helpers/source-graph.js';

const WIDTH = (JSON.parse(readFileSync(join(ROOT, 'biome.json'), 'utf8')) as { formatter: { lineWidth: number } })
  .formatter.lineWidth;
/** a line that is one regular expression literal, maybe followed by `,` `;` or `)` */
const REGEX_ALONE = /^\s*\/[^/*].*\/[dgimsuvy]*[,;)]*$/;

describe('line width', () => {
  it(`no line of code is over ${WIDTH} characters (a regular expression alone on its line aside)`, () => {
    const files = readSourceGraph(ROOT).files;
    expect(files.length).toBeGreaterThan(400);
    const long: string[] = [];
    for (const file of files) {
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if ([...line].length > WIDTH && !REGEX_ALONE.test(line)) long.push(`${file}:${i + 1} (${[...line].length})`);
        });
    }
    expect(long).toEqual([]);
  });

  it('the exception is only for a regular expression alone on its line', () => {
    expect(REGEX_ALONE.test('    /^the server sent nothing for 1 s \\(--timeout 1\\)/,')).toBe(true);
    expect(REGEX_ALONE.test("  it('a title', () => { expect(x).toMatch(/a/); });")).toBe(false);
    expect(REGEX_ALONE.test('  // a comment/')).toBe(false);
  });
});
