// Keys must never appear in what the CLI prints: every runner (in-process, subprocess, terminal) hands its output to
// assertNoSecrets, and test/setup.ts scans what every process of a test file printed once its tests are done.
import { appendFileSync } from 'node:fs';
import { DEFAULT_EMULATOR_KEY } from 'svc-emulator/auth';

/** Keys handed out by the helpers: none of them may ever appear in CLI output. */
const SECRETS = new Set<string>([DEFAULT_EMULATOR_KEY]);
/** Everything every CLI run of this test file printed; test/setup.ts scans it after the file's tests. */
const CAPTURED: { args: unknown; text: string }[] = [];

/** Register a key as a secret that must never be printed. */
export function registerSecret(key: string): void {
  SECRETS.add(key);
}

/** Keep a run's output for the scan after the test file (for processes whose output is read by the test itself). */
export function captureOutput(args: unknown, text: string): void {
  CAPTURED.push({ args, text });
}

/**
 * Scan everything captured since the last scan for any registered key (called after each test file by test/setup.ts),
 * then let it go: a worker runs file after file in one process (vitest.config.ts: isolate false), and scanning every
 * earlier file's output again after each file would grow with the square of the files.
 */
export function scanCapturedOutput(): number {
  for (const c of CAPTURED) assertNoSecrets(c.text, c.args);
  const scanned = CAPTURED.length;
  CAPTURED.length = 0;
  return scanned;
}

export function assertNoSecrets(text: string, context: unknown): void {
  // `svc emulator serve` prints the built-in emulator key on purpose (issue 15: CI needs it; it is public)
  // (after global flags, if any: `--timeout 2 emulator serve`)
  const serve = Array.isArray(context) && context.some((a, i) => a === 'emulator' && context[i + 1] === 'serve');
  for (const s of SECRETS) {
    if (serve && s === DEFAULT_EMULATOR_KEY) continue;
    if (s && text.includes(s)) throw new Error(`an API key leaked into CLI output (${JSON.stringify(context)})`);
  }
  if (process.env.SVC_TEST_OUTPUT_LOG) appendFileSync(process.env.SVC_TEST_OUTPUT_LOG, text);
}
