// Dead code fails the suite: an export of src/ that nothing uses — no other module, test, bench or script imports
// it and its own module does not use it either — and a package.json dependency that nothing imports or runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/files.js';
import { launcherSource } from '../helpers/run-env.js';
import { readSourceGraph } from '../helpers/source-graph.js';

const graph = readSourceGraph(ROOT);

/**
 * Exports just landed by an engineer still wiring them up (the API-parameter coverage test), named with who. Like
 * the known back edges of the import-direction test, an entry that gets used or removed fails the test until its
 * line is deleted, so this list shrinks to empty.
 */
const AWAITING_USE: string[] = [
  // params: request tables and tool files (core/), for the coverage test and the tool flags
  'src/core/request-table.ts tableOptions',
  'src/cmdutil/tool-file.ts toolName',
];

/** Names of each src/ module that some other file takes ('all' when it cannot be told). */
function usedNames(): Map<string, Set<string> | 'all'> {
  const used = new Map<string, Set<string> | 'all'>();
  const add = (file: string, names: Set<string> | 'all'): boolean => {
    const had = used.get(file);
    if (had === 'all') return false;
    if (names === 'all') return (used.set(file, 'all'), true);
    const set = had ?? new Set<string>();
    const before = set.size;
    for (const n of names) set.add(n);
    used.set(file, set);
    return set.size > before;
  };
  for (const imp of graph.imports) if (imp.from !== imp.to) add(imp.to, imp.names);
  // the launcher loads its entries by name (`load('cli').then(({ main }) => …)`, a bundle or dist/)
  const launcher = launcherSource();
  for (const [file, name] of [
    ['src/cli.ts', 'main'],
    ['src/help.ts', 'printTopLevelHelp'],
  ] as const) {
    if (new RegExp(`\\{ ${name} \\}`).test(launcher)) add(file, new Set([name]));
  }
  // a name taken from a module that re-exports everything of another (`export * from`) is taken from that one
  for (let changed = true; changed; ) {
    changed = false;
    for (const [file, targets] of graph.reexportAll) {
      const names = used.get(file);
      if (!names) continue;
      const own = graph.exports.get(file)!;
      for (const t of targets)
        changed = add(t, names === 'all' ? 'all' : new Set([...names].filter((n) => !own.has(n)))) || changed;
    }
  }
  return used;
}

describe('dead code', () => {
  it('every export of src/ is used somewhere', () => {
    const used = usedNames();
    const unused: string[] = [];
    for (const [file, names] of graph.exports) {
      const taken = used.get(file);
      if (taken === 'all') continue;
      const text = readFileSync(join(ROOT, file), 'utf8');
      // used in its own module (a type in an exported signature, a helper of an exported function): not dead
      const usedHere = (name: string) =>
        (text.match(new RegExp(`(?<![\\w$])(?<!(?:^|[^.])\\.)${name.replace(/\$/g, '\\$')}(?![\\w$])`, 'g')) ?? [])
          .length > 1;
      for (const [name, line] of names)
        if (!taken?.has(name) && (name === 'default' || !usedHere(name))) unused.push(`${file}:${line} ${name}`);
    }
    const awaiting = (u: string) => AWAITING_USE.includes(u.replace(/:\d+ /, ' '));
    expect(
      unused.filter((u) => !awaiting(u)),
      'exports nothing uses: remove them (or the export keyword)',
    ).toEqual([]);
    const nowUsed = AWAITING_USE.filter((a) => !unused.some((u) => u.replace(/:\d+ /, ' ') === a));
    expect(nowUsed, 'used or removed now: delete them from AWAITING_USE').toEqual([]);
  });

  it('every dependency in package.json is imported or run', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    const imported = new Set([...graph.packages.values()].flatMap((s) => [...s]));
    const scripts = Object.values(pkg.scripts ?? {}).join('\n');
    const runs = (name: string): boolean => {
      const meta = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
        bin?: string | Record<string, string>;
      };
      const bins = typeof meta.bin === 'string' ? [name] : Object.keys(meta.bin ?? {});
      return bins.some((b) => new RegExp(`(^|[\\s;&|(])(npx )?${b}\\b`).test(scripts));
    };
    const deps = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies, ...pkg.optionalDependencies });
    const unused = deps.filter((d) => {
      if (imported.has(d)) return false;
      const typesOf = /^@types\/(.+)$/.exec(d)?.[1];
      if (typesOf) return !(typesOf === 'node' || imported.has(typesOf));
      return !runs(d);
    });
    expect(unused, 'dependencies nothing imports or runs: remove them from package.json').toEqual([]);
  });
});
