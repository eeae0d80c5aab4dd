// The call log (issue 16, docs/logs.md): what logging adds to a call, and queries over 100,000 records.
// - append, in-process: one typical text-command record (prompt and answer included) appended per call, as the
//   exit hook does it (JSON, one O_APPEND write; a new day file's pruning included once) — goal < 2 ms;
// - a WebSocket session: what the session reader adds per event crossing the socket (a realtime answer's mix of
//   audio and transcript deltas), and writing a realtime session's record (conversation turns included) at exit;
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
  const two = (n) => String(n).padStart(2, '0');
  const t = `${day}T${two(Math.floor(i / 3600) % 24)}:${two(Math.floor(i / 60) % 60)}:${two(i % 60)}.000Z`;
  return {
    id: `${day.replace(/-/g, '')}-${t.slice(11, 19).replace(/:/g, '')}-${i.toString(36).padStart(8, '0')}`,
    time: t,
    command: i % 5 ? 'chat' : 'models list',
    method: i % 5 ? 'POST' : 'GET',
    path: i % 5 ? '/v1/chat/completions' : '/v1/models',
    status: 200,
    duration_ms: 100 + (i % 400),
    request_id: `0000${i}-aaaa-bbbb-cccc-dddddddddddd`,
    ...(i % 10 === 3
      ? {
          // a realtime session (every tenth record): the conversation in turns after prompt and answer
          command: 'realtime talk',
          method: 'WS',
          path: '/v1/realtime',
          status: 101,
          close_code: 1000,
          model: 'voice-latest',
          usage: {
            input_tokens: 200 + (i % 50),
            output_tokens: 900 + (i % 200),
            total_tokens: 1100 + (i % 50) + (i % 200),
          },
          prompt: `question number ${i} about tides\nand a second one`,
          answer: `An answer to question ${i}.\nAnd a second answer.`,
          turns: [
            { role: 'user', text: `question number ${i} about tides` },
            { role: 'assistant', text: `An answer to question ${i}.` },
            { role: 'user', text: 'and a second one' },
            { role: 'assistant', text: 'And a second answer.' },
          ],
        }
      : i % 5
        ? {
            model,
            usage: {
              input_tokens: 20 + (i % 50),
              output_tokens: 80 + (i % 200),
              total_tokens: 100 + (i % 50) + (i % 200),
            },
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
  const { appendRecords, capTexts } = await import(pathToFileURL(join(ROOT, 'dist/apilog/log.js')).href);

  // append, in-process
  const dir = join(mkdtempSync(join(tmpdir(), 'svc-bench-log-')), 'logs');
  const today = new Date().toISOString().slice(0, 10);
  const n = 2000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++)
    appendRecords(dir, [capTexts({ ...record(i, today, 'svc-4'), time: new Date().toISOString() })]);
  const perCall = Number(process.hrtime.bigint() - t0) / 1e6 / n;
  rows.push({ name: `call log: append one record (mean of ${n})`, value: perCall, unit: 'ms', goal: 2 });

  rows.push(...(await sessionRows(dir)));

  // loading the log's modules, in a fresh process (what a logged call pays once, besides the append)
  const load = spawnSync(
    'node',
    [
      '--input-type=module',
      '-e',
      `const t = performance.now(); await ` +
        `import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/apilog/recorder.js')).href)}); ` +
        `console.log(performance.now() - t);`,
    ],
    { encoding: 'utf8' },
  );
  rows.push({
    name: 'call log: loading its modules (fresh process, dist/)',
    value: Number(load.stdout.trim()),
    unit: 'ms',
  });

  // whole process: logging on against --no-log
  const emu = await startEmulatorProcess();
  try {
    const env = cleanEnv({ SVC_BASE_URL: emu.url, SVC_API_KEY: EMULATOR_KEY });
    const m = compareCommands(['node', BIN, '--no-log', 'models', 'list'], ['node', BIN, 'models', 'list'], {
      runs: RUNS,
      env,
    });
    rows.push({
      name: 'svc models list (logged)',
      value: m.ms,
      unit: 'ms',
      baseline: 'svc --no-log models list',
      baseValue: m.baseMs,
      ratio: m.ratio,
      spread: m.spread,
      cpuRatio: m.cpuRatio,
    });
    rows.push({
      name: 'call log: whole-call difference of medians (noise on a loaded machine)',
      value: m.ms - m.baseMs,
      unit: 'ms',
    });
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

/**
 * A realtime session through the recorder as net/ws feeds it: 60 answers of 50 audio deltas (4.8 KB of base64
 * each, 100 ms of 24 kHz pcm16) and 20 transcript deltas, each with its response.done; then the exit's flush.
 */
async function sessionRows(dir) {
  const { CallRecorder } = await import(pathToFileURL(join(ROOT, 'dist/apilog/recorder.js')).href);
  const audio = Buffer.alloc(4800, 7).toString('base64');
  const events = [];
  for (let a = 0; a < 60; a++) {
    events.push({ type: 'conversation.item.input_audio_transcription.completed', transcript: `question ${a}` });
    events.push({ type: 'response.created', response: { id: `r${a}` } });
    for (let d = 0; d < 50; d++) {
      events.push({ type: 'response.output_audio.delta', response_id: `r${a}`, delta: audio });
      if (d % 5 === 0)
        events.push({ type: 'response.output_audio_transcript.delta', response_id: `r${a}`, delta: 'a few words ' });
    }
    events.push({
      type: 'response.output_audio_transcript.done',
      response_id: `r${a}`,
      transcript: 'a few words '.repeat(10).trim(),
    });
    events.push({
      type: 'response.done',
      response: { id: `r${a}`, status: 'completed', usage: { input_tokens: 20, output_tokens: 90, total_tokens: 110 } },
    });
  }
  const env = { SVC_DATA_DIR: join(dir, '..') };
  const sessions = 20;
  let feedNs = 0n;
  let flushNs = 0n;
  for (let s = 0; s < sessions; s++) {
    const rec = new CallRecorder(env, 'realtime talk', 30);
    await rec.readySessions();
    const w = rec.onWsOpen({
      path: '/v1/realtime',
      query: { model: 'voice-latest' },
      status: 101,
      startedAt: Date.now(),
      requestId: 'req',
    });
    const t = process.hrtime.bigint();
    for (const ev of events) w.received(ev);
    w.ended(1000, undefined, true);
    const t1 = process.hrtime.bigint();
    await rec.flush(async () => undefined);
    flushNs += process.hrtime.bigint() - t1;
    feedNs += t1 - t;
  }
  return [
    {
      name: `call log: reading one WebSocket event of a realtime session (mean of ${sessions * events.length})`,
      value: Number(feedNs) / 1e3 / (sessions * events.length),
      unit: 'µs',
    },
    {
      name: `call log: writing a realtime session's record at exit (60 turns each way, mean of ${sessions})`,
      value: Number(flushNs) / 1e6 / sessions,
      unit: 'ms',
      goal: 2,
    },
  ];
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
