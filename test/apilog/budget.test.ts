// budget.daily's reservations (src/apilog/budget.ts): calls that start together — tool calls of one `svc mcp serve`,
// several svc processes — never spend more than the budget, however many are in flight. They run against an API
// that bills (test/helpers/billing-proxy.ts: the emulator behind a proxy that drops its mark), each reply held
// 400 ms so that the calls are in flight together.
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DEFAULT_MAX_OUTPUT_TOKENS, release, reserve } from '../../src/apilog/budget.js';
import { BudgetError } from '../../src/core/errors.js';
import { startBillingProxy, type BillingProxy } from '../helpers/billing-proxy.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { ROOT, tempDir } from '../helpers/files.js';
import { svcInProcess } from '../helpers/in-process.js';
import { mcpStdio } from '../helpers/mcp.js';
import { svcProcess } from '../helpers/subprocess.js';

let emu: TestEmulator;
let api: BillingProxy;
beforeAll(async () => {
  emu = await startTestEmulator();
  api = await startBillingProxy(emu.url, { delayMs: 400 });
});
afterAll(async () => {
  await api.close();
  await emu.close();
});

const CHAT = ['chat', '--no-stream', '-m', 'svc-4-mini', '--max-completion-tokens', '40', 'name a colour'];

/** what the call log says was spent (calls the API billed) and how many chats it holds */
async function logged(configDir: string, env: Record<string, string>) {
  const r = await svcInProcess(['logs', '--json'], { configDir, env });
  const records = r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { path: string; cost_usd?: number; emulated?: boolean });
  const chats = records.filter((x) => x.path === '/v1/chat/completions' && !x.emulated);
  return { spent: chats.reduce((s, x) => s + (x.cost_usd ?? 0), 0), chats: chats.length };
}

/** a config whose budget.daily is worth two calls' worst case, read from the refusal of a budget worth none */
async function budgetForTwoCalls(configDir: string, env: Record<string, string>): Promise<number> {
  expect((await svcInProcess(['config', 'set', 'budget.daily', '0.00000001'], { configDir })).exitCode).toBe(0);
  const probe = await svcInProcess(['--budget-strict', ...CHAT], { emu, configDir, env });
  expect(probe.exitCode, probe.stderr).toBe(8);
  const worst = Number(/may cost up to \$([0-9.]+)/.exec(probe.stderr)?.[1]);
  expect(worst).toBeGreaterThan(0);
  const budget = Number((worst * 2.5).toFixed(8));
  expect((await svcInProcess(['config', 'set', 'budget.daily', String(budget)], { configDir })).exitCode).toBe(0);
  return budget;
}

describe('the ledger', () => {
  it('a lock left by a killed process is broken; the open reservation of a dead process still counts', () => {
    const dir = tempDir('svc-ledger-');
    // the pid of a process that has ended
    const dead = String(spawnSync('true').pid);
    const lock = join(dir, 'budget.lock');
    writeFileSync(lock, dead);
    utimesSync(lock, new Date(Date.now() - 5000), new Date(Date.now() - 5000));
    const day = new Date().toISOString().slice(0, 10);
    const held = { id: `${day}/1/1/x`, pid: Number(dead), usd: 0.6 };
    writeFileSync(join(dir, `budget-${day}.jsonl`), `${JSON.stringify(held)}\n`);
    const id = reserve(dir, 1, { usd: 0.3, what: 'a call' });
    expect(existsSync(lock)).toBe(false);
    // 0.6 held by the dead process + 0.3 + 0.3 > 1
    expect(() => reserve(dir, 1, { usd: 0.3, what: 'another call' })).toThrow(BudgetError);
    release(dir, [id]);
    expect(reserve(dir, 1, { usd: 0.3, what: 'a third call' })).toMatch(new RegExp(`^${day}/${process.pid}/`));
  });
});

describe('budget.daily under concurrency', () => {
  it("the API's default cap on output tokens is the API document's", () => {
    const doc = JSON.parse(readFileSync(join(ROOT, 'packages/emulator/spec/openapi.json'), 'utf8'));
    const s = doc.components.schemas;
    expect(s.ChatRequest.properties.max_completion_tokens.default).toBe(API_DEFAULT_MAX_OUTPUT_TOKENS);
    expect(s.ResponsesRequest.properties.max_output_tokens.default).toBe(API_DEFAULT_MAX_OUTPUT_TOKENS);
  });

  it('20 generate_text calls at once in mcp serve: two reach the API, the rest are refused naming it', async () => {
    const configDir = tempDir('svc-budget-mcp-');
    const env = { SVC_BASE_URL: api.url };
    const budget = await budgetForTwoCalls(configDir, env);
    const s = await mcpStdio(['mcp', 'serve'], { emu, configDir, env });
    // the answers are held until every refused call has come back, so the calls are in flight together
    const gate = api.gate();
    try {
      const args = { prompt: 'name a colour', model: 'svc-4-mini', max_completion_tokens: 40 };
      let back = 0;
      const calls = Array.from({ length: 20 }, () =>
        s.client.callTool({ name: 'generate_text', arguments: args }).finally(() => ++back >= 18 && gate.open()),
      );
      setTimeout(() => gate.open(), 20_000).unref();
      const results = (await Promise.all(calls)) as { isError?: boolean; content: { text?: string }[] }[];
      const refused = results.filter((r) => r.isError);
      for (const r of refused) expect(r.content[0]?.text).toMatch(/budget\.daily \$[0-9.]+: this call may cost/);
      expect(results.length - refused.length).toBe(2);
      expect(s.errors).toEqual([]);
    } finally {
      gate.open();
      await s.close();
    }
    const { spent, chats } = await logged(configDir, env);
    expect(chats).toBe(2);
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(budget);
  });

  it('3 svc processes at once: two reach the API, the third exits 8 naming the budget', async () => {
    const configDir = tempDir('svc-budget-procs-');
    const env = { SVC_BASE_URL: api.url };
    const budget = await budgetForTwoCalls(configDir, env);
    // the answers are held until one process has been refused, so the three are in flight together
    const gate = api.gate();
    setTimeout(() => gate.open(), 20_000).unref();
    const runs = await Promise.all(
      [1, 2, 3].map(() => svcProcess(['--budget-strict', ...CHAT], { emu, configDir, env }).finally(() => gate.open())),
    ).finally(() => gate.open());
    const codes = runs.map((r) => r.exitCode).sort();
    expect(codes, runs.map((r) => r.stderr).join('\n')).toEqual([0, 0, 8]);
    expect(runs.find((r) => r.exitCode === 8)?.stderr).toMatch(/budget\.daily \$[0-9.]+: this call may cost up to/);
    const { spent, chats } = await logged(configDir, env);
    expect(chats).toBe(2);
    expect(spent).toBeLessThanOrEqual(budget);
  });

  it('batch --deferred: a row is reserved until its answer is fetched; a second process finds no room', async () => {
    const configDir = tempDir('svc-budget-batch-');
    const env = { SVC_BASE_URL: api.url };
    const budget = await budgetForTwoCalls(configDir, env);
    emu.core.settings.deferredDelayMs = 1500;
    // the rows the API holds at once (taken deferred, answer not yet fetched), across both processes
    const held = emu.core.store.collection('chat_deferred');
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, held.size)), 2);
    const run = () => {
      const input = join(tempDir('svc-budget-rows-'), 'rows.txt');
      writeFileSync(input, `${Array.from({ length: 4 }, () => 'name a colour').join('\n')}\n`);
      const args = ['batch', 'chat', input, '-m', 'svc-4-mini', '--max-tokens', '40', '--deferred', '-P', '4'];
      return svcProcess(args, { emu, configDir, env });
    };
    try {
      // the answers are held until the second run is over: the first run's rows are taken, not yet answered
      const gate = api.gate((method, path) => method === 'GET' && path.includes('/deferred-completion/'));
      const first = run().finally(() => gate.open());
      while (held.size < 2) await new Promise((r) => setTimeout(r, 5));
      // the API has acknowledged the first run's two rows (the proxy holds each reply 400 ms)
      await new Promise((r) => setTimeout(r, 600));
      const second = await run().finally(() => gate.open());
      expect(second.exitCode, second.stderr).toBe(8);
      expect(second.stderr).toMatch(/stopped at the budget \(row 1: budget\.daily \$[0-9.]+: this call may cost/);
      // the first run goes on as its answers are fetched and their real cost frees room: done, or at the budget
      const done = await first;
      expect([0, 8], done.stderr).toContain(done.exitCode);
    } finally {
      clearInterval(watch);
    }
    expect(most).toBe(2);
    const records = (await svcInProcess(['logs', '--json'], { configDir, env })).stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { path: string; cost_usd?: number });
    const fetched = records.filter((x) => x.path.includes('/deferred-completion/') && x.cost_usd !== undefined);
    expect(fetched.length).toBeGreaterThanOrEqual(2);
    expect(records.reduce((s, x) => s + (x.cost_usd ?? 0), 0)).toBeLessThanOrEqual(budget);
    // every reservation ended with its answer's record: none is left open by the runs that ended
    const ledger = readFileSync(
      join(configDir, 'data', 'logs', `budget-${new Date().toISOString().slice(0, 10)}.jsonl`),
      'utf8',
    );
    const lines = ledger
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: string; end?: boolean });
    const open = new Set(lines.filter((l) => !l.end).map((l) => l.id));
    for (const l of lines) if (l.end) open.delete(l.id);
    expect([...open]).toEqual([]);
  });
});
