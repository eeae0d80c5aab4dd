// Shared helpers for benchmarks: timing of whole processes, percentiles, an emulator in a child process.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
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

/** One run: wall ms, and CPU ms for node processes (cpu-usage.cjs preloaded into both sides alike). */
function timeOnce(cmd, args, env) {
  const isNode = cmd === 'node';
  const argv = isNode ? ['--require', CPU_PRELOAD, ...args] : args;
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const cpu = /svc-bench-cpu-us (\d+)/.exec(String(r.stderr));
  return { ms, cpuMs: cpu ? Number(cpu[1]) / 1000 : undefined };
}

/**
 * A command against its baseline, whole processes, alternating (baseline, command, baseline, …) so that a change of
 * load on this shared machine hits both alike; one warm-up run each (it also fills svc's code cache).
 * ratio: median of the per-pair wall-time ratios; spread: half their interquartile range, the run-to-run noise a
 * verdict allows for. cpuRatio: the same for CPU time (node processes only), which a loaded machine disturbs less.
 */
export function compareCommands(base, cmd, { runs = 15, env = process.env, baseEnv = env } = {}) {
  timeOnce(base[0], base.slice(1), baseEnv);
  timeOnce(cmd[0], cmd.slice(1), env);
  const baseMs = [];
  const cmdMs = [];
  const ratios = [];
  const cpuRatios = [];
  for (let i = 0; i < runs; i++) {
    const b = timeOnce(base[0], base.slice(1), baseEnv);
    const c = timeOnce(cmd[0], cmd.slice(1), env);
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
  return { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', SVC_CONFIG_DIR: dir, SVC_DATA_DIR: dir, ...extra };
}
