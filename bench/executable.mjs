// The single executable (`npm run build:exe`, dist/exe/svc) against the npm install (`node bin/svc.cjs`, the
// machine's Node), whole processes, alternating runs (compareCommands in lib.mjs): `svc --version` and
// `svc models list` against an emulator already running. Both compile only the chunks a command needs, each with V8's
// code cache kept in svc's cache folder (the executable: scripts/exe/loader.cjs; the npm install: bin/svc.cjs),
// warm after the first run. Without dist/exe/svc the rows say so and measure nothing.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, EMULATOR_KEY, ROOT, cleanEnv, compareCommands, startEmulatorProcess } from './lib.mjs';

const RUNS = 15;
const EXE = join(ROOT, 'dist', 'exe', process.platform === 'win32' ? 'svc.exe' : 'svc');

/** issue 40: the executable starts as fast as the npm install (docs/performance.md, "The single executables") */
function row(name, m, goal) {
  return {
    name,
    value: m.ms,
    unit: 'ms',
    baseline: 'node bin/svc.cjs',
    baseValue: m.baseMs,
    ratio: m.ratio,
    spread: m.spread,
    goal,
  };
}

export default async function executable() {
  if (!existsSync(EXE)) return [{ name: 'single executable: not built (npm run build:exe)', value: '' }];
  const rows = [{ name: 'single executable svc: size', value: statSync(EXE).size / 2 ** 20, unit: 'MiB' }];
  const env = cleanEnv();
  // the npm install answers --version before loading anything, the executable from its small entry chunk
  const version = compareCommands(['node', BIN, '--version'], [EXE, '--version'], { env, runs: RUNS });
  rows.push(row('executable svc --version', version, 1.1));
  const emu = await startEmulatorProcess();
  try {
    const reqEnv = cleanEnv({ SVC_BASE_URL: emu.url, SVC_API_KEY: EMULATOR_KEY });
    const list = compareCommands(['node', BIN, 'models', 'list'], [EXE, 'models', 'list'], { env: reqEnv, runs: RUNS });
    rows.push(row('executable svc models list (running emulator)', list, 1.3));
  } finally {
    emu.stop();
  }
  return rows;
}
