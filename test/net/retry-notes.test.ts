// A retried request says on stderr what it waits for and how long (not with -q; --verbose traces it instead).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('retry notes', () => {
  it(
    'a 429 with Retry-After: a note naming the status, the request, the wait and the retry count; ' + 'then done',
    async () => {
      emu.faults.add({ kind: 'status', status: 429, retryAfter: '1', path: '^/v1/models$', times: 1 });
      const r = await svcInProcess(['models', 'list', '--json'], { emu });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        "note: HTTP 429 from GET /v1/models; retrying in 1.0 s (the server's Retry-After) (retry 1 of 2)",
      );
      expect(r.stdout).toContain('svc-4');
    },
  );

  it('-q keeps stderr silent', async () => {
    emu.faults.add({ kind: 'status', status: 429, retryAfter: '1', path: '^/v1/models$', times: 1 });
    const r = await svcInProcess(['models', 'list', '--json', '-q'], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
  });
});
