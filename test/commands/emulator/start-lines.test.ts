// Issue 26 items 11 and 15, from the CLI: `--print-env` prints `export` lines and lets go of stdout, so the help's
// `eval "$(…)"` example and the README's block return; `--host 0.0.0.0` prints a URL svc accepts; `--rate-limit`
// (and a fixtures key's `rate_limit`) answers 429 with Retry-After and x-ratelimit-* headers.
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import serve from '../../../src/commands/emulator/serve.js';
import { ROOT, tempDir } from '../../helpers/files.js';
import { svcBinDir, svcShell } from '../../helpers/subprocess.js';
import { svcInProcess, svcUntilStopped } from '../../helpers/in-process.js';

const KEY = 'svc-emulator-local-key-0000000000000000';
/** emulators served in-process, each stopped (as by Ctrl-C) after its test */
const serving: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of serving.splice(0)) await stop();
});

/** `svc emulator serve ARGS` in-process until the test ends; its first stdout line (the URL) */
async function start(args: string[]): Promise<string> {
  const { firstLine, stop } = await svcUntilStopped(['emulator', 'serve', '--port', '0', '--memory', ...args]);
  serving.push(stop);
  return firstLine;
}

/** Run a shell block as a user would, with `svc` an executable on PATH; `after` runs in the same shell. */
function asUser(block: string, after = '') {
  return svcShell(`unset -f svc\nexport PATH=${svcBinDir()}:$PATH\n${block}\n${after}`, {
    key: null,
    env: { SVC_BASE_URL: undefined, SVC_API_KEY: undefined },
    timeout: 60_000,
  });
}

/** until nothing answers at `url` (the server was stopped) */
async function gone(url: string): Promise<void> {
  for (;;) {
    const up = await fetch(`${url}/_emulator/health`).then(
      () => true,
      () => false,
    );
    if (!up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('--print-env and eval', () => {
  it('the help’s eval example returns, and svc then talks to the background emulator', async () => {
    const example = serve.examples!.find((e) => e.startsWith('eval '))!;
    expect(example).toContain('--print-env');
    const r = await asUser(example, 'echo "url=$SVC_BASE_URL"');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\bsvc-4\b/);
    await gone(/url=(\S+)/.exec(r.stdout)![1]!);
  });

  it('the README’s block for your own machine, run as written', async () => {
    const doc = readFileSync(join(ROOT, 'packages', 'emulator', 'README.md'), 'utf8');
    const block = /### On your own machine[\s\S]*?```sh\n([\s\S]*?)```/.exec(doc)![1]!;
    expect(block).toMatch(/--print-env --rate-limit/);
    const r = await asUser(block, 'echo "url=$SVC_BASE_URL pid=$SVC_EMULATOR_PID key=${#SVC_API_KEY}"');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\bsvc-4\b/);
    expect(r.stdout).toMatch(/url=http:\/\/127\.0\.0\.1:\d+ pid=\d+ key=39/);
    await gone(/url=(\S+)/.exec(r.stdout)![1]!);
  });

  it('prints export lines: URL, key and pid', async () => {
    const r = await asUser(
      'f=$(mktemp); svc emulator serve --memory --print-env 2>/dev/null > "$f" &\n' +
        'until grep -q PID "$f"; do sleep 0.1; done\n' +
        'sed "s/SVC_API_KEY=.*/SVC_API_KEY=(key)/" "$f"; . "$f"; test "$SVC_API_KEY" = ' +
        `${KEY}; kill "$SVC_EMULATOR_PID"`,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^export SVC_BASE_URL=http:\/\/127\.0\.0\.1:\d+\nexport SVC_API_KEY=\(key\)\nexport SVC_EMULATOR_PID=\d+\n?$/,
    );
  });
});

describe('--host 0.0.0.0', () => {
  it('prints a loopback URL that svc accepts; the host’s name needs the insecure-http opt-in', async () => {
    const url = await start(['--host', '0.0.0.0']);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const ok = await svcInProcess(['whoami'], { key: KEY, env: { SVC_BASE_URL: url } });
    expect(ok.exitCode, ok.stderr).toBe(0);
    const byName = url.replace('127.0.0.1', hostname());
    const refused = await svcInProcess(['whoami'], { key: KEY, env: { SVC_BASE_URL: byName } });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('SVC_ALLOW_INSECURE_HTTP=1');
  });
});

describe('--rate-limit', () => {
  it('answers 429 with Retry-After and x-ratelimit headers beyond RPM; svc without retries exits 6', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'f.yaml'), 'keys:\n  - key: ci-limited-key-00000000000000\n    rate_limit: "1"\n');
    const url = await start(['--rate-limit', '3', '--fixtures', join(dir, 'f.yaml')]);
    const on = { key: KEY, env: { SVC_BASE_URL: url } };
    const first = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('3');
    expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('2');
    expect((await svcInProcess(['models', 'list'], on)).exitCode).toBe(0);
    expect((await svcInProcess(['models', 'list'], on)).exitCode).toBe(0);
    const over = await svcInProcess(['models', 'list', '--max-retries', '0'], on);
    expect(over.exitCode).toBe(6);
    expect(over.stderr).toContain('Rate limit exceeded: 3 requests per minute');
    const raw = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(raw.status).toBe(429);
    expect(Number(raw.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(raw.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(raw.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    // the fixtures key has its own limit of 1
    const limited = { headers: { authorization: 'Bearer ci-limited-key-00000000000000' } };
    expect((await fetch(`${url}/v1/models`, limited)).status).toBe(200);
    const second = await fetch(`${url}/v1/models`, limited);
    expect(second.status).toBe(429);
    expect(second.headers.get('x-ratelimit-limit-requests')).toBe('1');
    // reset forgets what was counted
    expect((await svcInProcess(['emulator', 'reset'], on)).exitCode).toBe(0);
    expect((await svcInProcess(['models', 'list', '--max-retries', '0'], on)).exitCode).toBe(0);
  });

  it.each([['0'], ['abc'], ['60,'], ['60,0'], ['1,2,3'], ['1000001'], ['-1']])(
    'refuses --rate-limit %s before starting (exit 2)',
    async (v) => {
      const r = await svcInProcess(['emulator', 'serve', '--memory', '--port', '0', '--rate-limit', v]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/--rate-limit: .* is not allowed: (RPM|TPM)/);
    },
  );
});
