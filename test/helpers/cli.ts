// Test helpers: an emulator on a real loopback socket, and the built CLI run as a process against it.
// Every run checks that no API key appears in what the CLI printed (stdout and stderr, --verbose included).
import { mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/server.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'svc.cjs');

/** Keys handed out by these helpers: none of them may ever appear in CLI output. */
const SECRETS = new Set<string>();
/** Everything every CLI process of this test file printed; test/setup.ts scans it after the file's tests. */
const CAPTURED: { args: unknown; text: string }[] = [];

export interface TestEmulator extends Emulator {
  /** a fresh key with every ACL, registered on the emulator */
  key: string;
  dir: string;
  /** requests that reached the emulator, excluding admin calls */
  requests(): { method: string; path: string; body?: string; query: Record<string, unknown>; headers: Record<string, unknown> }[];
  clearRequests(): void;
}

export async function startTestEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const emu = await startEmulator({ stateDir: join(dir, 'state'), quietLog: true, ...opts });
  const rec = emu.addKey({ name: 'test key' });
  SECRETS.add(rec.key);
  SECRETS.add(emu.defaultKey);
  const closeEmulator = emu.close.bind(emu);
  const addKey = emu.addKey.bind(emu);
  return Object.assign(emu, {
    addKey(partial?: Parameters<typeof addKey>[0]) {
      const k = addKey(partial);
      SECRETS.add(k.key);
      return k;
    },
    key: rec.key,
    dir,
    requests: () => emu.core.requests,
    clearRequests: () => {
      emu.core.requests.length = 0;
    },
    async close() {
      await closeEmulator();
      rmSync(dir, { recursive: true, force: true });
    },
  }) as TestEmulator;
}

/** Register a key as a secret that must never be printed. */
export function registerSecret(key: string): void {
  SECRETS.add(key);
}

export interface RunOptions {
  emu?: TestEmulator;
  /** API key to use (default: the emulator's test key); null for none */
  key?: string | null;
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  inputFile?: string;
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

/** Start the CLI as a process (for tests that need to signal it or read it while it runs). */
export function spawnSvc(args: string[], opts: RunOptions = {}): ResultPromise {
  const child = execa('node', [BIN, ...args], {
    env: svcEnv(opts),
    extendEnv: false,
    input: opts.input,
    inputFile: opts.inputFile,
    stdin: opts.input === undefined && opts.inputFile === undefined ? 'ignore' : undefined,
    cwd: opts.cwd ?? ROOT,
    reject: false,
    timeout: opts.timeout ?? 30_000,
    stripFinalNewline: false,
    encoding: 'utf8',
  }) as unknown as ResultPromise;
  child.then(
    (r) => CAPTURED.push({ args, text: `${String(r.stdout ?? '')}${String(r.stderr ?? '')}` }),
    () => {},
  );
  return child;
}

/** Scan everything captured so far for any registered key (called after each test file by test/setup.ts). */
export function scanCapturedOutput(): number {
  for (const c of CAPTURED) assertNoSecrets(c.text, c.args);
  return CAPTURED.length;
}

/** Run the CLI to completion. Fails the test if any registered key shows up in its output. */
export async function svc(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const r = await spawnSvc(args, opts);
  const result = { exitCode: r.exitCode ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
  assertNoSecrets(result.stdout + result.stderr, args);
  return result;
}

export function assertNoSecrets(text: string, context: unknown): void {
  for (const s of SECRETS) {
    if (s && text.includes(s)) throw new Error(`an API key leaked into CLI output (${JSON.stringify(context)})`);
  }
  if (process.env.SVC_TEST_OUTPUT_LOG) appendFileSync(process.env.SVC_TEST_OUTPUT_LOG, text);
}

export function tempDir(prefix = 'svc-t-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeTemp(name: string, content: string | Buffer): string {
  const d = tempDir();
  const p = join(d, name);
  writeFileSync(p, content);
  return p;
}
