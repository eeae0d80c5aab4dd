// Every CLI process a test starts goes through a runner helper (test/helpers/subprocess.ts, terminal.ts), which scans
// what it printed for API keys.
// test/setup.ts refuses such a process at run time; this finds the attempt in the source, even in a test that
// did not run.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/files.js';

const HELPERS = new Set([
  'test/helpers/run-env.ts',
  'test/helpers/subprocess.ts',
  'test/helpers/terminal.ts',
  'test/helpers/mcp.ts',
  'test/setup.ts',
]);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : testFiles(p);
    return /\.(ts|mts|js|mjs|cjs)$/.test(e.name) ? [relative(ROOT, p)] : [];
  });
}

/** Ways to start the CLI other than the helpers: naming the launcher or the built files, or running node itself. */
const BYPASS: [RegExp, string][] = [
  [/svc\.cjs|['"`]bin['"`]\s*,\s*['"`]svc|\bbin\/svc\b/, 'names the launcher'],
  [/['"`]dist['"`]\s*,\s*['"`]cli\.js|\bdist\/cli\.js/, 'names the built CLI'],
  [
    /\b(execa|execaNode|spawn|spawnSync|execFile|execFileSync|fork)\(\s*(['"`]node['"`]|process\.execPath)/,
    'starts node',
  ],
];

describe('CLI processes in tests', () => {
  it('are started only through the runner helpers of test/helpers/', () => {
    const offenders: string[] = [];
    for (const file of testFiles(join(ROOT, 'test'))) {
      if (HELPERS.has(file) || file === 'test/repo/cli-runs.test.ts') continue;
      const source = readFileSync(join(ROOT, file), 'utf8');
      for (const [pattern, what] of BYPASS) if (pattern.test(source)) offenders.push(`${file} ${what}`);
    }
    expect(offenders).toEqual([]);
  });

  it('the run-time guard refuses a CLI process started without a helper', async () => {
    const { execa } = await import('execa');
    const launcher = join(ROOT, 'bin', 'svc' + '.cjs');
    const child = async () => execa('node', [launcher, '--version']);
    await expect(child()).rejects.toThrow(/started the CLI without the runner helpers of test\/helpers\//);
  });
});
