// Shared helpers for benchmarks: timing of whole processes, percentiles, an emulator in a child process.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('..', import.meta.url).pathname;
export const BIN = join(ROOT, 'bin', 'svc.cjs');
export const EMULATOR_KEY = 'svc-emulator-local-key-0000000000000000';

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

/** Median wall time (ms) of running a command to completion, after one warm-up run. */
export function timeCommand(cmd, args, { runs = 15, env = process.env } = {}) {
  spawnSync(cmd, args, { env, stdio: 'ignore' });
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  }
  return median(times);
}

const CPU_PRELOAD = join(ROOT, 'bench', 'cpu-usage.cjs');

/**
 * One run: wall ms, and CPU ms for node processes (cpu-usage.cjs preloaded into both sides alike). `terminal`: stdin
 * and stdout are this process's (a terminal, see compareOnTerminal); stderr is read for the CPU time either way.
 */
function timeOnce(cmd, args, env, terminal = false, stdinFile = undefined) {
  const isNode = cmd === 'node';
  const argv = isNode ? ['--require', CPU_PRELOAD, ...args] : args;
  const stdin = stdinFile ? openSync(stdinFile, 'r') : 'ignore';
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, {
    env,
    stdio: terminal ? ['inherit', 'inherit', 'pipe'] : [stdin, 'ignore', 'pipe'],
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (stdinFile) closeSync(stdin);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const cpu = /svc-bench-cpu-us (\d+)/.exec(String(r.stderr));
  return { ms, cpuMs: cpu ? Number(cpu[1]) / 1000 : undefined };
}

/**
 * A command against its baseline, whole processes, alternating (baseline, command, baseline, …) so that a change of
 * load on this shared machine hits both alike; one warm-up run each (it also fills svc's code cache).
 * ratio: median of the per-pair wall-time ratios; spread: half their interquartile range, the run-to-run noise a
 * verdict allows for. cpuRatio: the same for CPU time (node processes only), which a loaded machine disturbs less.
 * stdinFile: the command's stdin (the baseline's is the null device).
 */
export function compareCommands(
  base,
  cmd,
  { runs = 15, env = process.env, baseEnv = env, terminal = false, stdinFile = undefined } = {},
) {
  timeOnce(base[0], base.slice(1), baseEnv, terminal);
  timeOnce(cmd[0], cmd.slice(1), env, terminal, stdinFile);
  const baseMs = [];
  const cmdMs = [];
  const ratios = [];
  const cpuRatios = [];
  for (let i = 0; i < runs; i++) {
    const b = timeOnce(base[0], base.slice(1), baseEnv, terminal);
    const c = timeOnce(cmd[0], cmd.slice(1), env, terminal, stdinFile);
    baseMs.push(b.ms);
    cmdMs.push(c.ms);
    ratios.push(c.ms / b.ms);
    if (b.cpuMs && c.cpuMs) cpuRatios.push(c.cpuMs / b.cpuMs);
  }
  return {
    baseMs: median(baseMs),
    ms: median(cmdMs),
    ratio: median(ratios),
    spread: (percentile(ratios, 75) - percentile(ratios, 25)) / 2,
    cpuRatio: cpuRatios.length ? median(cpuRatios) : undefined,
  };
}

const quote = (s) => `'${String(s).replaceAll("'", `'\\''`)}'`;

/**
 * compareCommands for each of `pairs` ({ base, cmd, runs }) with stdin and stdout on a terminal of `cols` columns
 * (a pseudo-terminal of util-linux `script`): the comparisons run in one process inside it (bench/on-terminal.cjs),
 * so that the time of `script` itself is in neither side.
 */
export function compareOnTerminal(pairs, { cols, rows = 40, env }) {
  const result = join(mkdtempSync(join(tmpdir(), 'svc-bench-tty-')), 'result.json');
  const driver = join(ROOT, 'bench', 'on-terminal.cjs');
  const line =
    `stty cols ${cols} rows ${rows}; exec node ${quote(driver)} ${quote(result)} ` +
    `${quote(JSON.stringify(pairs.map((p) => ({ ...p, env }))))}`;
  const r = spawnSync('script', ['-qfec', line, '/dev/null'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`on a terminal: script exited ${r.status}: ${r.stderr}`);
  return JSON.parse(readFileSync(result, 'utf8'));
}

/** `svc emulator serve` in a child process; resolves with its URL. */
export function startEmulatorProcess(extra = []) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const child = spawn('node', [BIN, 'emulator', 'serve', '--memory', ...extra], {
    env: { ...process.env, SVC_CONFIG_DIR: dir, SVC_DATA_DIR: dir },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve({ url: d.toString().trim(), stop: () => child.kill('SIGINT') }));
    child.once('exit', (code) => reject(new Error(`emulator exited ${code}`)));
  });
}

export function cleanEnv(extra = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-cfg-'));
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NO_COLOR: '1',
    SVC_CONFIG_DIR: dir,
    SVC_DATA_DIR: dir,
    ...extra,
  };
}
