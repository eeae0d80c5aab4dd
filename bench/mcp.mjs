// `svc mcp serve` (issues 29, 41): the cold start of the server to its first tools/list answer, against `svc
// --version` (the launcher alone), whole processes in alternating runs (compareCommands in lib.mjs), goal 2x. The
// server reads initialize, initialized and tools/list from a file on stdin and ends when it has answered them. Its
// added cost is the CLI, the MCP SDK's server (with zod) and the tool table; the tools' commands load on a call.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, cleanEnv, compareCommands } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);

export default async function mcpBench() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-mcp-'));
  const requests = join(dir, 'requests.jsonl');
  const messages = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ];
  writeFileSync(requests, messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
  const env = cleanEnv();
  const m = compareCommands(['node', BIN, '--version'], ['node', BIN, '-q', 'mcp', 'serve', '--root', dir], {
    runs: RUNS,
    env,
    stdinFile: requests,
  });
  return [
    {
      name: 'svc mcp serve: start to the first tools/list answer',
      value: m.ms,
      unit: 'ms',
      baseline: 'svc --version',
      baseValue: m.baseMs,
      ratio: m.ratio,
      spread: m.spread,
      cpuRatio: m.cpuRatio,
      goal: 2,
    },
  ];
}
