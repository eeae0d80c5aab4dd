// A streamed reply that did not end is recorded as such (issue 25, item 9): interrupted by Ctrl-C, cut, stalled or
// ended without its end marker, its record keeps the status (the reply began: 200) with `error` saying why and
// `answer` what arrived — never a 200 that answered nothing. The net/http chokepoint tells the log (onCallFailed) and
// net/sse hands it each event (onStreamEvent), for every streamed command alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/files.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { spawnSvc } from '../helpers/subprocess.js';
import { HostileServer } from '../helpers/hostile-server.js';
import { registerSecret } from '../helpers/secrets.js';
import type { CallRecord } from '../../src/apilog/log.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const records = (configDir: string): CallRecord[] => {
  const dir = join(configDir, 'data', 'logs');
  return readdirSync(dir).flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as CallRecord),
  );
};

describe('Ctrl-C in the middle of a streamed answer', () => {
  for (const [command, path] of [
    [['chat', 'tell me a long story about a lighthouse'], '/v1/chat/completions'],
    [['responses', 'create', 'tell me a long story about a lighthouse'], '/v1/responses'],
    [['messages', '--stream', 'tell me a long story about a lighthouse'], '/v1/messages'],
  ] as const) {
    it(`${command[0]}: the record says "interrupted" and keeps the text that arrived`, async () => {
      const configDir = tempDir();
      emu.core.settings.tokenDelayMs = 40;
      try {
        const proc = spawnSvc([...command], { emu, configDir, timeout: 40_000 });
        let stdout = '';
        await new Promise<void>((resolve, reject) => {
          proc.stdout!.on('data', (d: Buffer) => {
            stdout += d.toString();
            if (stdout.length > 20) resolve();
          });
          proc.then(() => reject(new Error(`ended before the interrupt: ${stdout}`)), reject);
        });
        proc.kill('SIGINT');
        const r = await proc;
        expect(r.exitCode).toBe(130);
        const printed = String(r.stdout).trim();
        const rec = records(configDir).find((x) => x.path === path)!;
        expect(rec).toMatchObject({ status: 200, error: 'interrupted' });
        expect(rec.answer).toBeTruthy();
        // what the log keeps is what arrived: what was printed, and perhaps a token more
        expect(rec.answer!.startsWith(printed)).toBe(true);
      } finally {
        emu.core.settings.tokenDelayMs = 0;
      }
    });
  }
});

describe('a stream cut or left without its end marker', () => {
  const KEY = 'svc-interrupted-log-key-0123456789';
  registerSecret(KEY);
  let server: HostileServer;
  beforeAll(async () => {
    server = await HostileServer.start();
  });
  afterAll(() => server.close());

  for (const [fault, error] of [
    ['reset', /the connection (was lost|to .* was closed)/],
    ['no-end', /the stream ended before its end marker/],
  ] as const) {
    it(`${fault}: the record has the error and what arrived`, async () => {
      const configDir = tempDir();
      server.plan('POST /v1/chat/completions', fault);
      const r = await svcInProcess(['--timeout', '2', '--max-retries', '0', 'chat', 'hello'], {
        configDir,
        env: { SVC_BASE_URL: server.url, SVC_API_KEY: KEY },
      });
      expect(r.exitCode).toBe(1);
      const rec = records(configDir).find((x) => x.path === '/v1/chat/completions')!;
      expect(rec.status).toBe(200);
      expect(rec.error).toMatch(error);
      expect(rec.answer).toMatch(/^Hello/);
    });
  }

  it('a stream that ended well has no error', async () => {
    const configDir = tempDir();
    const r = await svcInProcess(['chat', 'hello'], { emu, configDir });
    expect(r.exitCode).toBe(0);
    const rec = records(configDir).find((x) => x.path === '/v1/chat/completions')!;
    expect(rec.error).toBeUndefined();
    expect(rec.answer).toBe(r.stdout.trim());
  });
});
