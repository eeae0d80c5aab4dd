// The money of `svc batch` (src/batch/money.ts, the runner's reservations): each row's worst case is reserved
// before it goes, so that neither a run nor its --resume passes --budget; the spend of earlier runs comes from the
// journal.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { itWithEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { tempDir } from '../helpers/files.js';

const it = itWithEmulator();

const doneRows = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { t: string; out?: { cost_usd?: number } })
    .filter((r) => r.t === 'done');

describe.concurrent('svc batch within --budget', () => {
  it('a run stopped at --budget, resumed with the same budget, starts no row that cannot fit (exit 8)', async ({
    emu,
  }) => {
    const dir = tempDir();
    const input = join(dir, 'rows.txt');
    // rows alike cost alike: the row after the stop would cost what the last one did
    writeFileSync(input, `${Array.from({ length: 12 }, () => 'Name one prime number.').join('\n')}\n`);
    const args = ['batch', 'chat', input, '--max-tokens', '16', '-P', '4', '-o', join(dir, 'out.jsonl')];
    const budget = 0.002;
    const first = await svcInProcess([...args, '--budget', String(budget)], { emu });
    expect(first.exitCode, first.stderr).toBe(8);
    const journal = join(dir, 'out.jsonl.journal');
    const before = doneRows(journal);
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(12);
    emu.clearRequests();
    const again = await svcInProcess([...args, '--resume', '--budget', String(budget)], { emu });
    expect(again.exitCode, again.stderr).toBe(8);
    expect(again.stderr).toMatch(
      /stopped at the budget \(row \d+ may cost up to \$[0-9.]+ \(.*\), and \$[0-9.]+ is left/,
    );
    expect(emu.requests().filter((r) => r.method === 'POST')).toEqual([]);
    const spent = doneRows(journal).reduce((s, r) => s + (r.out?.cost_usd ?? 0), 0);
    expect(spent).toBeLessThanOrEqual(budget);
  });

  it('at -P 8 the rows in flight together never reserve more than --budget', async ({ emu }) => {
    const dir = tempDir();
    const input = join(dir, 'rows.txt');
    writeFileSync(input, `${Array.from({ length: 40 }, (_, i) => `Name prime number ${i}.`).join('\n')}\n`);
    const r = await svcInProcess(
      ['batch', 'chat', input, '--max-tokens', '16', '-P', '8', '-o', join(dir, 'out.jsonl'), '--budget', '0.003'],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(8);
    const spent = doneRows(join(dir, 'out.jsonl.journal')).reduce((s, x) => s + (x.out?.cost_usd ?? 0), 0);
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(0.003);
  });
});
