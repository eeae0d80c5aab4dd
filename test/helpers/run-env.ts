// What every way of running the CLI shares: the launcher, the environment a run gets, its options and result, and
// the mark that a helper is starting it (test/setup.ts refuses a CLI process started any other way).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './files.js';
import type { TestEmulator } from './emulator.js';

/** the launcher; only the runner helpers start it (see spawningThroughHelper) */
export const LAUNCHER = join(ROOT, 'bin', 'svc.cjs');
/** whether a path or file URL is the launcher (for import traces) */
export const isLauncher = (pathOrUrl: string): boolean => pathOrUrl.endsWith(LAUNCHER);
/** the launcher's source (for checks of what it loads) */
export const launcherSource = (): string => readFileSync(LAUNCHER, 'utf8');

export interface RunOptions {
  emu?: TestEmulator;
  /** API key to use (default: the emulator's test key); null for none */
  key?: string | null;
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  inputFile?: string;
  /** 'pipe' to write to the process's stdin while it runs (spawnSvc) */
  stdin?: 'pipe';
  /** 'buffer' keeps stdout/stderr as bytes (spawnSvc) */
  encoding?: 'utf8' | 'buffer';
  /** node's own options, before the launcher (e.g. ['--require', tracer]) */
  nodeArgs?: string[];
  cwd?: string;
  timeout?: number;
  /** config dir (default: a fresh temp dir per run) */
  configDir?: string;
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** The environment every CLI run of the suite gets (nothing is inherited but PATH, HOME and TMPDIR). */
export function svcEnv(opts: RunOptions): Record<string, string | undefined> {
  const configDir = opts.configDir ?? mkdtempSync(join(tmpdir(), 'svc-cfg-'));
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    SVC_CONFIG_DIR: configDir,
    SVC_DATA_DIR: join(configDir, 'data'),
    ALSA_CONFIG_PATH: process.env.ALSA_CONFIG_PATH ?? join(ROOT, 'test', 'fixtures', 'asound-null.conf'),
    SVC_BASE_URL: opts.emu?.url,
    SVC_API_KEY: opts.key === null ? undefined : (opts.key ?? opts.emu?.key),
    ...opts.env,
  };
}

/**
 * The runner helpers are the only way a test starts the CLI: test/setup.ts refuses (throws) any process whose
 * command line names the launcher unless one of them is starting it, and test/repo/cli-runs.test.ts fails on a
 * test file that mentions the launcher.
 */
let helperSpawning = 0;
export function spawningThroughHelper(): boolean {
  return helperSpawning > 0;
}
export function throughHelper<T>(start: () => T): T {
  helperSpawning++;
  try {
    return start();
  } finally {
    helperSpawning--;
  }
}

export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** `node <launcher> args…` as one shell word list */
export const commandLine = (args: string[]) => ['node', LAUNCHER, ...args].map(shellQuote).join(' ');
