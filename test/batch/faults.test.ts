// svc batch against a hostile server (test/helpers/hostile-server.ts): each fault of one row's reply — silence and
// a stall past --timeout, a reset mid-body, an HTML page, an empty or malformed 200, a 500, a 429 — is that row's
// error, classified in its output line, while the other rows are done; -o is written whole, no temp file is left.
// (The fault matrix's rows assert one request's outcome; a batch's outcome is per row, so its faults are here.)
// The cases run at once (silences and stalls wait for --timeout), each against a server of its own.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it as base } from 'vitest';
import { HostileServer, type Fault } from '../helpers/hostile-server.js';
import { registerSecret } from '../helpers/secrets.js';
import { svcInProcess } from '../helpers/in-process.js';
import { tempDir } from '../helpers/files.js';

const KEY = 'svc-hostile-batch-key-0123456789';
registerSecret(KEY);

const it = base.extend<{ server: HostileServer }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  server: async ({}, use) => {
    const own = await HostileServer.start();
    await use(own);
    await own.close();
  },
});

const ROUTE = 'POST /v1/chat/completions';

/** fault → what the failed row's error says */
const CASES: [string, Fault, RegExp][] = [
  ['silent', 'silent', /did not answer in time|timed out|stalled/i],
  ['stall', 'stall', /stalled|did not answer in time|timed out|sent nothing/i],
  ['reset', 'reset', /connection|lost|closed|reset/i],
  ['html', 'html', /HTML|not JSON|JSON/i],
  ['empty', 'empty', /empty|JSON/i],
  ['malformed', 'malformed', /JSON/i],
  ['500', { status: 500 }, /hostile server refused/],
];

describe.concurrent('svc batch against a hostile server', () => {
  for (const [name, fault, message] of CASES) {
    it(`${name}: the row fails with its error, the others are done, exit 1`, async ({ server }) => {
      const dir = tempDir();
      const input = join(dir, 'rows.txt');
      writeFileSync(input, 'first\nsecond\nthird\n');
      const output = join(dir, 'out.jsonl');
      // network errors and 5xx are sent again (--max-retries 1): planned twice, so the row still fails; a reply
      // that is not what the protocol says is not
      const retried = ['silent', 'stall', 'reset', '500'].includes(name);
      server.plan(ROUTE, fault, ...(retried ? [fault] : []));
      const r = await svcInProcess(
        ['batch', 'chat', input, '-o', output, '-P', '1', '--timeout', '1', '--max-retries', '1'],
        { key: KEY, env: { SVC_BASE_URL: server.url } },
      );
      expect(r.exitCode, r.stderr).toBe(1);
      const out = readFileSync(output, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(out.map((o) => [o.row, o.status])).toEqual([
        [1, 'failed'],
        [2, 'done'],
        [3, 'done'],
      ]);
      expect(out[0].attempts).toBe(retried ? 2 : 1);
      expect(out[0].error.message).toMatch(message);
      expect(out[1].text).toContain('Hello from the hostile server.');
      expect(r.stderr).toContain('2/3 done · 1 failed');
      expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
    });
  }

  it('429 with Retry-After: the row waits and goes again, done; counted as a 429', async ({ server }) => {
    const dir = tempDir();
    const input = join(dir, 'rows.txt');
    writeFileSync(input, 'first\nsecond\n');
    server.plan(ROUTE, { status: 429, retryAfter: '1' });
    const r = await svcInProcess(['batch', 'chat', input, '-P', '1', '--json'], {
      key: KEY,
      env: { SVC_BASE_URL: server.url },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const summary = JSON.parse(r.stderr.trim().split('\n').pop()!);
    expect(summary).toMatchObject({ done: 2, failed: 0, throttled: 1, retried: 1 });
  });
});
