// Cold start, the rows of issue 14 with their goals: svc --version / --help / a command's help into a pipe and on a
// terminal / every command's help on a terminal against `node -e 0`; `svc models list` and `svc chat --no-stream hi`
// against minimal node:http scripts making the same
// request and printing the same thing, against an emulator already running; `svc --emulator models list` against a
// script that starts the same emulator in-process and makes the request. Whole processes, alternating runs, medians
// (compareCommands in lib.mjs); a row fails when its ratio exceeds the goal by more than the spread it measured.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, EMULATOR_KEY, ROOT, cleanEnv, compareCommands, compareOnTerminal, startEmulatorProcess } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
/** runs per command in the sweep over every command's help (the slowest three are then measured with RUNS) */
const SWEEP_RUNS = Number(process.env.BENCH_SWEEP_RUNS ?? 3);

function row(name, baseline, m, goal) {
  return {
    name,
    value: m.ms,
    unit: 'ms',
    baseline,
    baseValue: m.baseMs,
    ratio: m.ratio,
    spread: m.spread,
    cpuRatio: m.cpuRatio,
    goal,
  };
}

/** Every command path (`chat`, `models list` …), walking the same tree the CLI builds. */
async function commandPaths() {
  const { rootCommands } = await import(pathToFileURL(join(ROOT, 'dist/commands/index.js')).href);
  const paths = [];
  const walk = async (nodes, prefix) => {
    for (const n of nodes) {
      if (n.children) await walk(await n.children(), [...prefix, n.name]);
      else paths.push([...prefix, n.name]);
    }
  };
  await walk(rootCommands, []);
  return paths;
}

function writeScripts(dir) {
  const get = join(dir, 'minimal-get.mjs');
  writeFileSync(
    get,
    `import http from 'node:http';
const headers = { authorization: 'Bearer ' + process.env.KEY };
const req = http.get(process.env.URL + '/v1/models', { headers }, (res) => {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (c) => (body += c));
  res.on('end', () => { for (const m of JSON.parse(body).data) process.stdout.write(m.id + '\\n'); });
});
req.end();`,
  );
  const post = join(dir, 'minimal-chat.mjs');
  writeFileSync(
    post,
    `import http from 'node:http';
const body = JSON.stringify({ model: 'svc-latest', messages: [{ role: 'user', content: 'hi' }], stream: false });
const headers = { authorization: 'Bearer ' + process.env.KEY, 'content-type': 'application/json' };
const req = http.request(process.env.URL + '/v1/chat/completions', { method: 'POST', headers }, (res) => {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (c) => (text += c));
  res.on('end', () => process.stdout.write(JSON.parse(text).choices[0].message.content + '\\n'));
});
req.end(body);`,
  );
  const inproc = join(dir, 'inproc.mjs');
  const emulatorUrl = pathToFileURL(join(ROOT, 'packages/emulator/dist/http/server.js')).href;
  writeFileSync(
    inproc,
    `import http from 'node:http';
const { startEmulator } = await import(${JSON.stringify(emulatorUrl)});
const emu = await startEmulator({ stateDir: process.env.STATE, quietLog: true });
http.get(emu.url + '/v1/models', { headers: { authorization: 'Bearer ' + emu.defaultKey } }, (res) => {
  let body = '';
  res.on('data', (c) => (body += c));
  res.on('end', async () => {
    for (const m of JSON.parse(body).data) process.stdout.write(m.id + '\\n');
    await emu.close();
    process.exit(0);
  });
});`,
  );
  return { get, post, inproc };
}

export default async function startup() {
  const env = cleanEnv();
  const node0 = ['node', '-e', '0'];
  const svc = (...args) => ['node', BIN, ...args];
  const rows = [
    row('svc --version', 'node -e 0', compareCommands(node0, svc('--version'), { env, runs: RUNS }), 1.1),
    row('svc --help', 'node -e 0', compareCommands(node0, svc('--help'), { env, runs: RUNS }), 1.25),
    row(
      'svc chat --help (into a pipe)',
      'node -e 0',
      compareCommands(node0, svc('chat', '--help'), { env, runs: RUNS }),
      1.5,
    ),
    row(
      'svc help chat (into a pipe)',
      'node -e 0',
      compareCommands(node0, svc('help', 'chat'), { env, runs: RUNS }),
      1.5,
    ),
  ];
  // on a terminal (how people read help): laid out at its width by the launcher (bin/svc.cjs), the baseline on the
  // same terminal
  const [chatOnTerminal] = compareOnTerminal([{ base: node0, cmd: svc('chat', '--help'), runs: RUNS }], {
    cols: 120,
    env,
  });
  rows.push(row('svc chat --help on a terminal of 120 columns', 'node -e 0', chatOnTerminal, 1.5));

  // every command's help on a terminal: a quick sweep, then the slowest three measured properly
  const paths = await commandPaths();
  const sweep = compareOnTerminal(
    paths.map((path) => ({ base: node0, cmd: svc(...path, '--help'), runs: SWEEP_RUNS })),
    { cols: 100, env },
  )
    .map((m, i) => ({ path: paths[i], m }))
    .sort((a, b) => b.m.ratio - a.m.ratio)
    .slice(0, 3);
  const slowest = compareOnTerminal(
    sweep.map(({ path }) => ({ base: node0, cmd: svc(...path, '--help'), runs: RUNS })),
    { cols: 100, env },
  )
    .map((m, i) => ({ path: sweep[i].path, m }))
    .sort((a, b) => b.m.ratio - a.m.ratio)[0];
  rows.push(
    row(
      `slowest help of ${paths.length} commands on a terminal of 100 columns: ${slowest.path.join(' ')}`,
      'node -e 0',
      slowest.m,
      1.5,
    ),
  );

  const emu = await startEmulatorProcess();
  try {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
    const scripts = writeScripts(dir);
    const reqEnv = cleanEnv({ URL: emu.url, KEY: EMULATOR_KEY, SVC_BASE_URL: emu.url, SVC_API_KEY: EMULATOR_KEY });
    rows.push(
      row(
        'svc models list (running emulator)',
        'minimal node:http GET',
        compareCommands(['node', scripts.get], svc('models', 'list'), { env: reqEnv, runs: RUNS }),
        1.2,
      ),
    );
    rows.push(
      row(
        'svc chat --no-stream hi (running emulator)',
        'minimal node:http POST',
        compareCommands(['node', scripts.post], svc('chat', '--no-stream', 'hi'), { env: reqEnv, runs: RUNS }),
        1.2,
      ),
    );
    if (spawnSync('curl', ['--version']).status === 0) {
      const curl = compareCommands(
        ['curl', '-sf', '-H', `authorization: Bearer ${EMULATOR_KEY}`, `${emu.url}/v1/models`, '-o', '/dev/null'],
        svc('models', 'list'),
        { env: reqEnv, runs: RUNS },
      );
      rows.push(row('svc models list, for reference', 'curl', curl));
    }
    const state = mkdtempSync(join(tmpdir(), 'svc-bench-state-'));
    const inproc = compareCommands(['node', scripts.inproc], svc('--emulator', 'models', 'list'), {
      baseEnv: cleanEnv({ STATE: state }),
      env: cleanEnv({ SVC_EMULATOR_STATE_DIR: state }),
      runs: RUNS,
    });
    rows.push(row('svc --emulator models list', 'minimal in-process emulator + GET', inproc, 1.3));
  } finally {
    emu.stop();
  }
  return rows;
}
