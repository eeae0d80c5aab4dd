// scripts/mutate.mjs plants known bugs by replacing an exact text of the source (it is not run by `npm test`: it
// rebuilds once per bug). Its table rots silently when the code around a planted bug changes, so this checks, for
// every mutant, that its text occurs exactly once in its file and that the files its tests name exist.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/files.js';

interface Mutant {
  name: string;
  file: string;
  find: string;
  tests: string[];
}

describe('scripts/mutate.mjs', () => {
  it('every mutant finds its text once, and its tests exist', async () => {
    const { MUTANTS } = (await import(join(ROOT, 'scripts', 'mutants.mjs'))) as { MUTANTS: Mutant[] };
    expect(MUTANTS.length).toBeGreaterThan(10);
    const stale = MUTANTS.filter((m) => readFileSync(join(ROOT, m.file), 'utf8').split(m.find).length !== 2);
    expect(stale.map((m) => `${m.name} (${m.file})`)).toEqual([]);
    const missing = MUTANTS.flatMap((m) => m.tests.filter((t) => !existsSync(join(ROOT, t))));
    expect(missing).toEqual([]);
  });
});
