// Every row of every request table that fills a body field (core/request-table.ts) reaches the emulator: each
// command is run once with every such flag given a valid value, and the request the emulator saw must carry each
// field. A row whose field is misspelt, or a flag the builder forgets, fails here (the structural checks are in
// api-parameters.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandSpec } from '../../src/cmdutil/command.js';
import type { RequestRow } from '../../src/core/request-table.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { tempDir } from '../helpers/files.js';
import { loadCommandSpecs } from '../helpers/command-tree.js';

let emu: TestEmulator;
let specs: Map<string, CommandSpec>;
beforeAll(async () => {
  emu = await startTestEmulator();
  specs = await loadCommandSpecs();
});
afterAll(() => emu.close());

/** values for flags whose value '1' (or their first choice) would not pass their check */
const SAMPLES: Record<string, string> = {
  '--logit-bias': '1=1',
  '--web-search-options': '{}',
  '--context-management': '[]',
  '--metadata': 'k=v',
  '--duration': '5',
  '--image': 'https://example.org/a.png',
  '--collection': 'c1',
};
/** what each command needs besides the table's flags (its positional arguments, a required flag) */
const BASE: Record<string, string[]> = {
  chat: ['--no-stream', 'hi'],
  'responses create': ['--no-stream', 'hi'],
  messages: ['hi'],
  'legacy completions': ['hi'],
  'legacy complete': ['hi'],
  embed: ['hi'],
  'documents search': ['policy'],
  'images generate': ['a fox'],
  'images edit': ['a fox'],
  'videos generate': ['waves'],
  'videos edit': ['--video', 'https://example.org/v.mp4', 'waves'],
  'videos extend': ['--video', 'https://example.org/v.mp4', 'waves'],
};

const longFlag = (flags: string) => /--[a-z0-9-]+/i.exec(flags)![0];
const has = (body: Record<string, any>, path: string) =>
  path.split('.').reduce<any>((at, k) => (at && typeof at === 'object' ? at[k] : undefined), body) !== undefined;

describe('request tables reach the emulator', () => {
  it('covers every command that declares a table with field rows', () => {
    const declared = [...specs]
      .filter(([, s]) => s.requests?.some((t) => (t.rows as RequestRow[]).some((r) => r.field)))
      .map(([c]) => c)
      .sort();
    expect(declared).toEqual(Object.keys(BASE).sort());
  });

  for (const command of Object.keys(BASE)) {
    it(`${command}: every field row is in the request`, async () => {
      const spec = specs.get(command)!;
      const table = spec.requests![0]!;
      const rows = (table.rows as RequestRow[]).filter((r) => r.field);
      expect(rows.length).toBeGreaterThan(0);
      const args: string[] = [];
      for (const r of rows) {
        const flag = longFlag(r.flags);
        if (!/[<[]/.test(r.flags)) args.push(r.flags.includes('--no-') ? flag : flag);
        else args.push(flag, SAMPLES[flag] ?? (r.choices ? String(r.choices[0]) : '1'));
      }
      emu.clearRequests();
      const [method, path] = table.operation.split(' ') as [string, string];
      const r = await svcInProcess([...command.split(' '), ...args, ...BASE[command]!], { emu, cwd: tempDir() });
      const seen = emu.requests().filter((q) => q.method === method && q.path === path);
      expect(seen.length, `${command} sent no ${table.operation} (exit ${r.exitCode}): ${r.stderr}`).toBeGreaterThan(0);
      const body = JSON.parse(seen[0]!.body!) as Record<string, any>;
      const missing = rows.filter((row) => !has(body, row.field!)).map((row) => `${row.flags} → ${row.field}`);
      expect(missing).toEqual([]);
    });
  }
});
