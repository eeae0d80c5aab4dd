// svc batch killed with SIGKILL (issue 37, item 7): rows paid twice per kill, before and after --deferred. A chat
// batch of N rows at -P 16 against the emulator (in this process) behind a proxy that logs each request's row as
// it arrives, whose answers take G ms to generate: a plain row's reply comes G ms after its request (the proxy
// holds it); a --deferred row's request is taken at once and its answer is ready G ms later (the emulator's
// deferred delay). Each run is killed with SIGKILL KILLS times, each once N/12 more rows are done and then a
// pseudo-random 0-G ms later (not at the instant rows complete), then the last resume finishes. A row paid twice
// is a row whose POST reached the API more than once. The baseline is the same kills of plain runs (every row in
// flight at a kill is sent, and paid, again).
import { spawn } from 'node:child_process';
import { createServer, request } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, ROOT } from './lib.mjs';

const N = 300;
const P = 16;
const KILLS = 10;
const G_MS = 400;

const doneRows = (journal) =>
  existsSync(journal)
    ? readFileSync(journal, 'utf8')
        .split('\n')
        .filter((l) => l.endsWith('}') && l.includes('"t":"done"')).length
    : 0;

function runBatch(args, env) {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const ended = new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  return { child, ended };
}

/** The API as the runs see it: the emulator, each POST's row logged on arrival, plain answers held `G_MS`. */
async function startApi(emuUrl) {
  const api = { rows: [], holdMs: 0 };
  const upstream = new URL(emuUrl);
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const row = req.method === 'POST' ? /"content":"row (\d+) of the batch"/.exec(body.toString())?.[1] : undefined;
      if (row) api.rows.push(row);
      const out = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (reply) =>
          setTimeout(
            () => {
              res.writeHead(reply.statusCode ?? 502, reply.headers);
              reply.pipe(res);
            },
            row ? api.holdMs : 0,
          ),
      );
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${server.address().port}`;
  api.close = () => new Promise((resolve) => server.close(resolve) && server.closeAllConnections());
  return api;
}

/** A seeded stream of numbers in [0, 1): the kills fall at the same moments in every run of the bench. */
function seeded(seed) {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
}

/** One mode: KILLS kills, then a resume to the end; the rows whose POST reached the API more than once. */
async function crashes(emu, api, dir, env, deferred) {
  api.rows.length = 0;
  api.holdMs = deferred ? 0 : G_MS;
  emu.core.settings.deferredDelayMs = G_MS;
  const random = seeded(37);
  const name = deferred ? 'deferred' : 'plain';
  const input = join(dir, `${name}.jsonl`);
  writeFileSync(input, `${Array.from({ length: N }, (_, i) => JSON.stringify({ n: i + 1 })).join('\n')}\n`);
  const output = join(dir, `${name}-out.jsonl`);
  const journal = `${output}.journal`;
  const args = ['batch', 'chat', input, '--template', 'row {{n}} of the batch', '-o', output, '-P', String(P)];
  if (deferred) args.push('--deferred');
  const step = Math.floor(N / (KILLS + 2));
  for (let k = 0; k < KILLS; k++) {
    const run = runBatch(k === 0 ? args : [...args, '--resume'], env);
    const target = (k + 1) * step;
    let over = false;
    void run.ended.then(() => (over = true));
    while (!over && doneRows(journal) < target) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, random() * G_MS));
    if (over) throw new Error(`${name}: the run ended before it was killed: ${(await run.ended).stderr}`);
    run.child.kill('SIGKILL');
    await run.ended;
    await new Promise((r) => setTimeout(r, 100)); // requests still in this process's socket buffers are logged
  }
  const last = await runBatch([...args, '--resume'], env).ended;
  if (last.code !== 0) throw new Error(`${name}: the last resume failed: ${last.stderr}`);
  const posts = new Map();
  for (const row of api.rows) posts.set(row, (posts.get(row) ?? 0) + 1);
  if (posts.size !== N) throw new Error(`${name}: ${posts.size} of ${N} rows reached the API`);
  return [...posts.values()].filter((n) => n > 1).length;
}

export default async function run() {
  const { startEmulator } = await import(
    pathToFileURL(join(ROOT, 'packages', 'emulator', 'dist', 'http', 'server.js')).href
  );
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-crash-'));
  const emu = await startEmulator({ port: 0, stateDir: join(dir, 'state'), quietLog: true, tokenDelayMs: 0 });
  const api = await startApi(emu.url);
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NO_COLOR: '1',
    SVC_CONFIG_DIR: join(dir, 'cfg'),
    SVC_DATA_DIR: join(dir, 'data'),
    SVC_BASE_URL: api.url,
    SVC_API_KEY: emu.defaultKey,
  };
  try {
    const plain = await crashes(emu, api, dir, env, false);
    const deferred = await crashes(emu, api, dir, env, true);
    return [
      {
        name: `rows paid twice per kill, --deferred (${N} rows, -P ${P}, ${KILLS} kills)`,
        value: deferred / KILLS,
        unit: 'rows',
        ratio: deferred / Math.max(plain, 1),
        baseline: 'the same kills without --deferred',
        baseValue: plain / KILLS,
        goal: 0.1,
      },
    ];
  } finally {
    await api.close();
    await emu.close();
  }
}
