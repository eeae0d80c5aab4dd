// `npm run typecheck` (which `npm test` runs before the suite) checks the tests too (issue 38, item 6): before, its
// tsconfig.json named src/ and packages/*/src only, and 47 type errors had grown in the tests unseen. This reads the
// files tsconfig.json gives tsc (TypeScript's own reading of it, no check run) and the scripts that run it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/files.js';
import { typescript } from '../helpers/typescript.js';

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield relative(ROOT, path);
  }
}

const checked = () => {
  const ts = typescript();
  const read = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  expect(read.error).toBeUndefined();
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT);
  return new Set(parsed.fileNames.map((f) => relative(ROOT, f)));
};

describe('the type check', () => {
  it('covers every .ts of test/ and packages/*/test, vitest.config.ts and the sources; no bench/ script', () => {
    const files = checked();
    const folders = [
      join(ROOT, 'test'),
      ...readdirSync(join(ROOT, 'packages')).map((p) => join(ROOT, 'packages', p, 'test')),
    ];
    const tests = folders.filter((d) => existsSync(d)).flatMap((d) => [...walk(d)].filter((f) => /\.[cm]?ts$/.test(f)));
    expect(tests.length).toBeGreaterThan(200);
    expect(tests.filter((f) => !files.has(f))).toEqual([]);
    const others = [
      'src/cli.ts',
      'packages/emulator/src/http/server.ts',
      'packages/formats/src/webhooks.ts',
      'vitest.config.ts',
    ];
    for (const source of others) expect(files.has(source), source).toBe(true);
    expect([...files].filter((f) => f.startsWith('bench/'))).toEqual([]);
  });

  it('npm test runs it, incrementally, with its record under node_modules/.cache/svc-typecheck/', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.typecheck).toMatch(/^tsc -p tsconfig\.json --noEmit --incremental /);
    expect(scripts.typecheck).toContain('--tsBuildInfoFile node_modules/.cache/svc-typecheck/');
    expect(scripts.test).toContain('npm run typecheck &&');
  });
});
