// The type check of src/ (and the test helpers it shares types with): `npm run build` compiles each module on its
// own without checking types (scripts/build.mjs), so the suite runs tsc here, in parallel with the other files.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/files.js';

describe('types', () => {
  it('tsc --noEmit finds no error in src/ (the build does not check types)', async () => {
    const r = await execa('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit'], {
      cwd: ROOT,
      reject: false,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    expect(r.stdout + r.stderr, 'tsc reported errors').not.toMatch(/error TS\d+/);
    expect(r.exitCode).toBe(0);
  }, 180_000);
});
