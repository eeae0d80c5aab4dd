// Start-up and request overhead: svc --version / --help against `node -e 0`; `svc models list` against a
// minimal node script and curl making the same request; `svc --emulator models list` against a script that
// starts the same emulator in-process and makes the request.
import { spawnSync } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, EMULATOR_KEY, ROOT, cleanEnv, startEmulatorProcess, timeCommand } from './lib.mjs';

export default async function startup() {
  const env = cleanEnv();
  const node0 = timeCommand('node', ['-e', '0'], { env, runs: 21 });
  const version = timeCommand('node', [BIN, '--version'], { env, runs: 21 });
  const help = timeCommand('node', [BIN, '--help'], { env, runs: 21 });
  const rows = [
    { name: 'node -e 0', value: node0, unit: 'ms' },
    { name: 'svc --version', value: version, unit: 'ms', baseline: 'node -e 0', ratio: version / node0, target: '≤ 1.4x' },
    { name: 'svc --help', value: help, unit: 'ms', baseline: 'node -e 0', ratio: help / node0, target: '≤ 1.7x' },
  ];

  const emu = await startEmulatorProcess();
  try {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
    const script = join(dir, 'minimal.mjs');
    writeFileSync(
      script,
      `import http from 'node:http';
const req = http.get(process.env.URL + '/v1/models', { headers: { authorization: 'Bearer ' + process.env.KEY } }, (res) => {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (c) => (body += c));
  res.on('end', () => { for (const m of JSON.parse(body).data) process.stdout.write(m.id + '\\n'); });
});
req.end();`,
    );
    const reqEnv = cleanEnv({ URL: emu.url, KEY: EMULATOR_KEY, SVC_BASE_URL: emu.url, SVC_API_KEY: EMULATOR_KEY });
    const minimal = timeCommand('node', [script], { env: reqEnv });
    const svcList = timeCommand('node', [BIN, 'models', 'list'], { env: reqEnv });
    rows.push({ name: 'minimal node GET /v1/models', value: minimal, unit: 'ms' });
    rows.push({ name: 'svc models list (running emulator)', value: svcList, unit: 'ms', baseline: 'minimal node script', ratio: svcList / minimal });
    if (spawnSync('curl', ['--version']).status === 0) {
      const curl = timeCommand('curl', ['-sf', '-H', `authorization: Bearer ${EMULATOR_KEY}`, `${emu.url}/v1/models`, '-o', '/dev/null'], { env: reqEnv });
      rows.push({ name: 'curl GET /v1/models', value: curl, unit: 'ms' });
      rows.push({ name: 'svc models list vs curl', value: svcList, unit: 'ms', baseline: 'curl', ratio: svcList / curl });
    }

    const inproc = join(dir, 'inproc.mjs');
    writeFileSync(
      inproc,
      `import http from 'node:http';
const { startEmulator } = await import(${JSON.stringify(join(ROOT, 'dist/emulator/server.js'))});
const emu = await startEmulator({ stateDir: process.env.STATE });
http.get(emu.url + '/v1/models', { headers: { authorization: 'Bearer ' + emu.defaultKey } }, (res) => {
  let body = '';
  res.on('data', (c) => (body += c));
  res.on('end', async () => { for (const m of JSON.parse(body).data) process.stdout.write(m.id + '\\n'); await emu.close(); process.exit(0); });
});`,
    );
    const state = mkdtempSync(join(tmpdir(), 'svc-bench-state-'));
    const baselineEmu = timeCommand('node', [inproc], { env: cleanEnv({ STATE: state }) });
    const svcEmu = timeCommand('node', [BIN, '--emulator', 'models', 'list'], { env: cleanEnv({ SVC_EMULATOR_STATE_DIR: state }) });
    rows.push({ name: 'minimal script: in-process emulator + GET', value: baselineEmu, unit: 'ms' });
    rows.push({ name: 'svc --emulator models list', value: svcEmu, unit: 'ms', baseline: 'minimal in-process script', ratio: svcEmu / baselineEmu });
  } finally {
    emu.stop();
  }
  return rows;
}
