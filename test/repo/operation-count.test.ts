// Adding a resource is cheap (issue 38 item 7): a new operation of the API document needs no test edited for its
// count. A test derives the number of operations from the document; this finds one that writes it as a literal: the
// document's count (all operations, or the REST ones) near the word "operation" in a test.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiOperations } from '../helpers/api-document.js';
import { ROOT } from '../helpers/files.js';

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' || e.name === 'node_modules' ? [] : testFiles(p);
    return /\.(ts|mts|js|mjs)$/.test(e.name) ? [p] : [];
  });
}

/** lines of `source` that hold one of `counts` as a literal in a test (from its `it(`) that speaks of operations */
function literalCounts(source: string, counts: number[]): number[] {
  const lines = source.split('\n');
  const literal = new RegExp(`(?<![\\w.])(${counts.join('|')})(?![\\w.])`);
  let start = 0;
  return lines.flatMap((line, i) => {
    if (/\b(it|test|describe)(\.\w+)*\(/.test(line)) start = i;
    const test = lines.slice(start, i + 1).join('\n');
    return literal.test(line) && /\boperations?\b|\bops?\b|operationId/i.test(test) ? [i + 1] : [];
  });
}

describe('the number of operations of the API document', () => {
  const ops = Object.keys(apiOperations());
  const counts = [ops.length, ops.filter((op) => !op.startsWith('WS ')).length];

  it('is written in no test: each derives it from the document', () => {
    const dirs = [join(ROOT, 'test'), ...['emulator', 'formats'].map((p) => join(ROOT, 'packages', p, 'test'))];
    const offenders = dirs
      .flatMap(testFiles)
      .filter((file) => !file.endsWith(join('repo', 'operation-count.test.ts')))
      .flatMap((file) =>
        literalCounts(readFileSync(file, 'utf8'), counts).map((line) => `${relative(ROOT, file)}:${line}`),
      );
    expect(offenders).toEqual([]);
  });

  it('finds a count written as a literal, and not a number that only looks like one', () => {
    const [all, rest] = counts as [number, number];
    expect(literalCounts(`const ops = keys(doc);\nexpect(ops.length).toBe(${all});`, counts)).toEqual([2]);
    expect(literalCounts(`it('every operation (${rest} REST)', () => {});`, counts)).toEqual([1]);
    expect(literalCounts(`expect(ops.length).toBe(${all}0);\nsleep(${all}.5);`, counts)).toEqual([]);
    expect(
      literalCounts(`for (const op of doc) ids.add(op.operationId);\n\nexpect(ids.size).toBe(${all});`, counts),
    ).toEqual([3]);
    expect(literalCounts(`it('pages', () => {\n  expect(rows).toHaveLength(${all});`, counts)).toEqual([]);
  });
});
