// The type check of src/ (and the test helpers it shares types with): `npm run build` compiles each module on its
// own without checking types (scripts/build.mjs), so the suite runs tsc here, in parallel with the other files.
// tsc runs incrementally: its record of the last check (node_modules/.cache/svc-typecheck/, never committed) lets
// it check again only the files a change can affect, as `tsc --incremental` does for any project; without that
// record (a fresh clone, CI) it checks everything. The record's files carry their contents' hashes, so a stale one
// only costs time.
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/files.js';

const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');
const BUILD_INFO = join(ROOT, 'node_modules', '.cache', 'svc-typecheck', 'tsconfig.tsbuildinfo');

describe('types', () => {
  it('tsc --noEmit finds no error in src/ (the build does not check types)', async () => {
    const r = await execa(TSC, ['-p', 'tsconfig.json', '--noEmit', '--incremental', '--tsBuildInfoFile', BUILD_INFO], {
      cwd: ROOT,
      reject: false,
    });
    expect(r.stdout + r.stderr, 'tsc reported errors').not.toMatch(/error TS\d+/);
    expect(r.exitCode).toBe(0);
  }, 180_000);
});
