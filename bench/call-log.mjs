// The call log (issue 16, docs/logs.md): what logging adds to a call, and queries over 100,000 records.
// - append, in-process: one typical text-command record (prompt and answer included) appended per call, as the
//   exit hook does it (JSON, one O_APPEND write; a new day file's pruning included once) — goal < 2 ms;
// - `svc models list` against `svc --no-log models list`, whole processes against an emulator already running;
// - `svc usage --since 30d --by model`, `svc logs --grep` and `svc logs show ID` over 100,000 records in 30 day
//   files, whole processes — goal < 1000 ms each.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, EMULATOR_KEY, ROOT, cleanEnv, compareCommands, median, startEmulatorProcess } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const RECORDS = 100_000;

function record(i, day, model) {
  const t = `${day}T${String(Math.floor(i / 3600) % 24).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000Z`;
  return {
    id: `${day.replace(/-/g, '')}-${t.slice(11, 19).replace(/:/g, '')}-${i.toString(36).padStart(8, '0')}`,
    time: t,
    command: i % 5 ? 'chat' : 'models list',
    method: i % 5 ? 'POST' : 'GET',
    path: i % 5 ? '/v1/chat/completions' : '/v1/models',
    status: 200,
    duration_ms: 100 + (i % 400),
    request_id: `0000${i}-aaaa-bbbb-cccc-dddddddddddd`,
    ...(i % 5
      ? {
          model,
          usage: { input_tokens: 20 + (i % 50), output_tokens: 80 + (i % 200), total_tokens: 100 + (i % 50) + (i % 200) },
          cost_usd: 0.0001 + (i % 7) * 1e-5,
          // prompt and answer last, as the log writes them
          prompt: `question number ${i} about tides, the moon and the sea`,
          answer: `This is an answer of a few sentences to question ${i}. `.repeat(4),
        }
      : {}),
  };
}

const CPU_PRELOAD = join(ROOT, 'bench', 'cpu-usage.cjs');

/** A query as a row: median wall time (the goal's verdict) and median CPU time of the process (in the name). */
function queryRow(name, args, env, runs = 7) {
  spawnSync('node', [BIN, ...args], { env, stdio: 'ignore' });
  const times = [];
  const cpus = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync('node', ['--require', CPU_PRELOAD, BIN, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (r.status !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    const cpu = /svc-bench-cpu-us (\d+)/.exec(String(r.stderr));
    if (cpu) cpus.push(Number(cpu[1]) / 1000);
  }
  const cpu = cpus.length ? `, cpu ${median(cpus).toFixed(0)} ms` : '';
  return { name: `${name} (${RECORDS} records${cpu})`, value: median(times), unit: 'ms', goal: 1000 };
}

export default async function callLog() {
  const rows = [];
  const { appendRecords, capTexts } = await import(pathToFileURL(join(ROOT, 'dist/core/call-log.js')).href);

  // append, in-process
  const dir = join(mkdtempSync(join(tmpdir(), 'svc-bench-log-')), 'logs');
  const today = new Date().toISOString().slice(0, 10);
  const n = 2000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) appendRecords(dir, [capTexts({ ...record(i, today, 'svc-4'), time: new Date().toISOString() })]);
  const perCall = Number(process.hrtime.bigint() - t0) / 1e6 / n;
  rows.push({ name: `call log: append one record (mean of ${n})`, value: perCall, unit: 'ms', goal: 2 });

  // loading the log's modules, in a fresh process (what a logged call pays once, besides the append)
  const load = spawnSync('node', ['--input-type=module', '-e', `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/core/call-recorder.js')).href)}); console.log(performance.now() - t);`], { encoding: 'utf8' });
  rows.push({ name: 'call log: loading its modules (fresh process, dist/)', value: Number(load.stdout.trim()), unit: 'ms' });

  // whole process: logging on against --no-log
  const emu = await startEmulatorProcess();
  try {
    const env = cleanEnv({ SVC_BASE_URL: emu.url, SVC_API_KEY: EMULATOR_KEY });
    const m = compareCommands(['node', BIN, '--no-log', 'models', 'list'], ['node', BIN, 'models', 'list'], { runs: RUNS, env });
    rows.push({ name: 'svc models list (logged)', value: m.ms, unit: 'ms', baseline: 'svc --no-log models list', baseValue: m.baseMs, ratio: m.ratio, spread: m.spread, cpuRatio: m.cpuRatio });
    rows.push({ name: 'call log: whole-call difference of medians (noise on a loaded machine)', value: m.ms - m.baseMs, unit: 'ms' });
  } finally {
    emu.stop();
  }

  // queries over 100,000 records in 30 day files
  const { data, someId } = writeFixture();
  const qenv = { ...cleanEnv(), SVC_DATA_DIR: data };
  rows.push(queryRow('svc usage --since 30d --by model', ['usage', '--since', '30d', '--by', 'model'], qenv));
  rows.push(queryRow('svc logs --grep "number 4242 "', ['logs', '--grep', 'number 4242 '], qenv));
  rows.push(queryRow('svc logs --model svc-3 --json', ['logs', '--model', 'svc-3', '--json'], qenv));
  rows.push(queryRow('svc logs show ID', ['logs', 'show', someId], qenv));
  return rows;
}

/** 100,000 records in 30 day files (UTC days back from today) under a fresh data folder. */
function writeFixture() {
  const data = mkdtempSync(join(tmpdir(), 'svc-bench-logq-'));
  const logs = join(data, 'logs');
  mkdirSync(logs, { recursive: true });
  const models = ['svc-4', 'svc-4-mini', 'svc-4-reasoning', 'svc-3'];
  const perDay = Math.ceil(RECORDS / 30);
  let someId;
  for (let d = 0; d < 30; d++) {
    const day = new Date(Date.now() - d * 86400_000).toISOString().slice(0, 10);
    const lines = [];
    for (let i = 0; i < perDay; i++) {
      const r = record(d * perDay + i, day, models[i % 4]);
      someId ??= r.id;
      lines.push(JSON.stringify(r));
    }
    writeFileSync(join(logs, `calls-${day}.jsonl`), `${lines.join('\n')}\n`);
  }
  return { data, someId };
}

// `node bench/call-log.mjs fixture` writes the fixture and prints its folder (for profiling a query by hand)
if (process.argv[2] === 'fixture') console.log(writeFixture().data);
