import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ tokenDelayMs: 0 });
});
afterAll(() => emu.close());

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_in_usd_ticks: number;
}

describe('svc usage', () => {
  it(
    '--json totals equal the sum of the usage the emulator reported for the same calls (streamed and not, two ' +
      'models)',
    async () => {
      const configDir = tempDir();
      const reported: (Usage & { model: string })[] = [];
      for (const [i, model] of ['svc-4', 'svc-4-mini', 'svc-4', 'svc-4-reasoning'].entries()) {
        const r = await svcInProcess(['chat', '--no-stream', '--json', '-m', model, `question ${i} about tides`], {
          emu,
          configDir,
        });
        expect(r.exitCode, r.stderr).toBe(0);
        const body = JSON.parse(r.stdout) as { usage: Usage; model: string };
        reported.push({ ...body.usage, model });
        // streamed: the usage arrives in the last chunk
        const s = await svcInProcess(['chat', '--json', '-m', model, `streamed ${i}`], { emu, configDir });
        expect(s.exitCode, s.stderr).toBe(0);
        const last = s.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
          .find((c) => c.usage);
        reported.push({ ...last.usage, model });
      }
      // a call without usage counts as a call and adds no tokens
      expect((await svcInProcess(['models', 'list'], { emu, configDir })).exitCode).toBe(0);

      const out = await svcInProcess(['usage', '--json', '--by', 'model'], { emu, configDir });
      expect(out.exitCode, out.stderr).toBe(0);
      const rows = out.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const total = rows.find((r) => r.total);
      const sum = (f: (u: Usage) => number, list = reported) => list.reduce((s, u) => s + f(u), 0);
      expect(total).toMatchObject({
        calls: 9,
        input_tokens: sum((u) => u.prompt_tokens),
        total_tokens: sum((u) => u.total_tokens),
        calls_without_cost: 0,
      });
      expect(total.cost_usd).toBeCloseTo(sum((u) => u.cost_in_usd_ticks) / 1e10, 12);
      const mini = rows.find((r) => r.model === 'svc-4-mini');
      const miniReported = reported.filter((u) => u.model === 'svc-4-mini');
      expect(mini).toMatchObject({ calls: 2, total_tokens: sum((u) => u.total_tokens, miniReported) });
      expect(rows.find((r) => r.model === '(none)')).toMatchObject({ calls: 1, total_tokens: 0 });

      // in a pipe: TSV rows, by day by default
      const tsv = await svcInProcess(['usage'], { emu, configDir });
      const [day, calls, , , tokens] = tsv.stdout.trim().split('\n')[0]!.split('\t');
      expect(day).toBe(new Date().toISOString().slice(0, 10));
      expect([calls, tokens]).toEqual(['9', String(sum((u) => u.total_tokens))]);
      // on a terminal: a table with a total row
      const table = await svcInProcess(['usage', '--by', 'command'], { emu, configDir, tty: true, columns: 100 });
      expect(table.stdout).toMatch(/COMMAND\s+CALLS/);
      expect(table.stdout).toMatch(/\btotal\s+9\b/);
    },
  );

  it(
    '--by and --since are checked before anything is read (exit 2, the flag and the allowed values ' + 'named)',
    async () => {
      const bad = await svcInProcess(['usage', '--by', 'week'], { emu });
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toMatch(/--by.*week.*day, model, command/);
      const since = await svcInProcess(['usage', '--since', 'yesterday'], { emu });
      expect(since.exitCode).toBe(2);
      expect(since.stderr).toMatch(/--since.*yesterday/);
    },
  );
  // budgets: test/commands/usage/pricing.test.ts
});
