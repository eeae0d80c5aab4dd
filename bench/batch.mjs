// svc batch (issue 28): throughput against a rate limit, against no limit, and memory over 100,000 rows.
// The emulator runs in this process (its rate-limit window shortened from a minute to WINDOW_MS, so that a run
// crosses several windows in seconds); the CLI runs as a process of its own, its peak RSS read by /usr/bin/time -v
// (or VmHWM polled from /proc).
// - rate limited: N rows of chat against a limit of R requests a window. The first R go at once, the rest at R a
//   window, so the ideal run takes (N - R) / R windows; the figure is the time taken over that ideal (goal ≤ 1.11,
//   i.e. rows/s ≥ 0.9 of the limit), with the 429s met per 1,000 rows;
// - no limit: the same chat rows, -P 16, against a minimal Node script sending the same bodies with fetch at the
//   same concurrency (goal ≤ 1.25, i.e. rows/s ≥ 0.8 of the script's);
// - memory: peak RSS of tokenize over 100,000 rows against 10,000 rows (goal ≤ 1.3: flat, not proportional).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, ROOT, median } from './lib.mjs';

const WINDOW_MS = 10_000;
const R = 100;
const N_LIMITED = 300;
const N_FREE = Number(process.env.BENCH_BATCH_ROWS ?? 2000);
const P = 16;

/** Run a node process; resolves with wall ms, exit code, stderr and peak RSS (bytes). */
function measured(argv, env) {
  const useTime = existsSync('/usr/bin/time');
  const cmd = useTime ? '/usr/bin/time' : process.execPath;
  const args = useTime ? ['-v', process.execPath, ...argv] : argv;
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let hwm = 0;
    child.stderr.on('data', (d) => (stderr += d));
    const poll = useTime
      ? undefined
      : setInterval(() => {
          try {
            const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
            if (m) hwm = Math.max(hwm, Number(m[1]) * 1024);
          } catch {
            // exited
          }
        }, 20);
    child.on('error', reject);
    child.on('close', (code) => {
      if (poll) clearInterval(poll);
      const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      if (m) hwm = Number(m[1]) * 1024;
      resolve({ ms: Date.now() - t0, code, stderr, rss: hwm });
    });
  });
}

/** The minimal client: the same bodies, fetch, `concurrency` at once, replies read and dropped. */
const SCRIPT = `
const [url, key, file, concurrency] = process.argv.slice(2);
const rows = require('node:fs').readFileSync(file, 'utf8').trim().split('\\n');
let next = 0;
async function worker() {
  while (next < rows.length) {
    const i = next++;
    const n = JSON.parse(rows[i]).n;
    const messages = [{ role: 'user', content: 'row ' + n + ' of the batch' }];
    const body = JSON.stringify({ model: 'svc-latest', messages });
    const res = await fetch(url + '/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' },
      body,
    });
    if (res.status !== 200) throw new Error('HTTP ' + res.status);
    await res.json();
  }
}
Promise.all(Array.from({ length: Number(concurrency) }, worker)).catch((e) => { console.error(e); process.exit(1); });
`;

function rowsFile(dir, n) {
  const path = join(dir, `rows-${n}.jsonl`);
  writeFileSync(path, `${Array.from({ length: n }, (_, i) => JSON.stringify({ n: i + 1 })).join('\n')}\n`);
  return path;
}

const batchArgs = (input, out, extra = []) => [
  BIN,
  'batch',
  'chat',
  input,
  '--template',
  'row {{n}} of the batch',
  '-o',
  out,
  '-P',
  String(P),
  ...extra,
];

async function limited(emu, dir, env) {
  emu.core.rateLimits.limit = { rpm: R };
  emu.core.rateLimits.windowMs = WINDOW_MS;
  emu.core.rateLimits.reset();
  emu.core.requests.length = 0;
  const input = rowsFile(dir, N_LIMITED);
  const r = await measured(batchArgs(input, join(dir, 'limited.jsonl')), env);
  if (r.code !== 0) throw new Error(`batch under the limit failed: ${r.stderr}`);
  const refused = emu.core.requests.filter((q) => q.status === 429 && q.path === '/v1/chat/completions').length;
  emu.core.rateLimits.limit = undefined;
  const ideal = ((N_LIMITED - R) / R) * WINDOW_MS;
  const perSec = N_LIMITED / (r.ms / 1000);
  return [
    {
      name: `rate limited (${R} a ${WINDOW_MS / 1000} s window, ${N_LIMITED} rows): time`,
      value: r.ms,
      unit: 'ms',
      ratio: r.ms / ideal,
      baseline: 'the ideal run at the limit',
      baseValue: ideal,
      goal: 1.11,
    },
    // past the first window (whose R rows go at once): the rate kept, as a share of the limit (goal ≥ 0.9)
    { name: `  rows/s as a share of the limit (${R / (WINDOW_MS / 1000)} rows/s)`, value: ideal / r.ms, unit: 'x' },
    { name: '  rows/s, whole run', value: perSec, unit: '/s' },
    { name: '  429s per 1,000 rows', value: (refused * 1000) / N_LIMITED, unit: '' },
  ];
}

async function free(emu, dir, env) {
  const input = rowsFile(dir, N_FREE);
  const script = join(dir, 'minimal.cjs');
  writeFileSync(script, SCRIPT);
  const base = [];
  const ours = [];
  for (let i = 0; i < 3; i++) {
    const s = await measured([script, emu.url, emu.defaultKey, input, String(P)], env);
    if (s.code !== 0) throw new Error(`the minimal script failed: ${s.stderr}`);
    base.push(s.ms);
    const b = await measured(
      batchArgs(input, join(dir, `free-${i}.jsonl`), ['--journal', join(dir, `free-${i}.j`)]),
      env,
    );
    if (b.code !== 0) throw new Error(`batch failed: ${b.stderr}`);
    ours.push(b.ms);
  }
  const ratios = ours.map((o, i) => o / base[i]);
  return [
    {
      name: `no limit, ${N_FREE} rows at -P ${P}: time`,
      value: median(ours),
      unit: 'ms',
      ratio: median(ours) / median(base),
      spread: (Math.max(...ratios) - Math.min(...ratios)) / 2,
      baseline: 'a minimal fetch script',
      baseValue: median(base),
      goal: 1.25,
    },
  ];
}

async function memory(dir, env) {
  const rss = {};
  for (const n of [10_000, 100_000]) {
    const input = rowsFile(dir, n);
    const r = await measured(
      [BIN, 'batch', 'tokenize', input, '--template', 'row {{n}}', '-o', join(dir, `tok-${n}.jsonl`), '-P', '32'],
      env,
    );
    if (r.code !== 0) throw new Error(`batch tokenize of ${n} rows failed: ${r.stderr}`);
    rss[n] = r.rss;
  }
  return [
    {
      name: 'peak RSS, 100,000 rows (tokenize)',
      value: rss[100_000] / 1024 / 1024,
      unit: 'MiB',
      ratio: rss[100_000] / rss[10_000],
      baseline: '10,000 rows',
      baseValue: rss[10_000] / 1024 / 1024,
      goal: 1.3,
    },
  ];
}

export default async function run() {
  const { startEmulator } = await import(
    pathToFileURL(join(ROOT, 'packages', 'emulator', 'dist', 'http', 'server.js')).href
  );
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-batch-'));
  const emu = await startEmulator({ port: 0, stateDir: join(dir, 'state'), quietLog: true, tokenDelayMs: 0 });
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NO_COLOR: '1',
    SVC_CONFIG_DIR: join(dir, 'cfg'),
    SVC_DATA_DIR: join(dir, 'data'),
    SVC_BASE_URL: emu.url,
    SVC_API_KEY: emu.defaultKey,
  };
  try {
    const only = process.env.BENCH_BATCH;
    const rows = [];
    if (!only || only.includes('limit')) rows.push(...(await limited(emu, dir, env)));
    if (!only || only.includes('free')) rows.push(...(await free(emu, dir, env)));
    if (!only || only.includes('memory')) rows.push(...(await memory(dir, env)));
    return rows;
  } finally {
    await emu.close();
  }
}
