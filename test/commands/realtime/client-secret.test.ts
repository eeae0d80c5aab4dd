import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('svc realtime client-secret', () => {
  it('prints only the secret on stdout (default lifetime 600 s), the expiry on stderr', async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await svcInProcess(['realtime', 'client-secret'], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^svc-cs-[A-Za-z0-9_-]+\n$/);
    expect(r.stderr).toMatch(/^expires at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
    expect(JSON.parse(emu.requests()[0]!.body!)).toEqual({ expires_after: { seconds: 600 } });
    const stored = emu.core.store
      .collection<{ expires_at: number; key: string }>('client_secrets')
      .get(r.stdout.trim())!;
    const after = Math.ceil(Date.now() / 1000);
    // 600 s after the moment the secret was made, which lies between the two readings of the clock
    expect(stored.expires_at).toBeGreaterThanOrEqual(before + 600);
    expect(stored.expires_at).toBeLessThanOrEqual(after + 600);
    expect(stored.key).toBe(emu.key);
  });

  it('--json prints {value, expires_at}; --expires-after takes seconds or 10m', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['realtime', 'client-secret', '--expires-after', '10m', '--json'], { emu });
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'value']);
    expect(body.value).toMatch(/^svc-cs-/);
    expect(JSON.parse(emu.requests()[0]!.body!)).toEqual({ expires_after: { seconds: 600 } });
  });

  it('the secret authenticates a WebSocket handshake (as the emulator server accepts it)', async () => {
    const r = await svcInProcess(['realtime', 'client-secret', '--expires-after', '60'], { emu });
    const value = r.stdout.trim();
    const { default: WebSocket } = await import('ws');
    const ws = new WebSocket(`${emu.wsUrl}/v1/realtime`, [`svc-client-secret.${value}`]);
    const opened = await new Promise<boolean>((resolve) => {
      ws.once('open', () => resolve(true));
      ws.once('unexpected-response', () => resolve(false));
      ws.once('error', () => resolve(false));
    });
    ws.terminate();
    expect(opened).toBe(true);
  });

  for (const bad of ['0', '3601', '2h', 'soon']) {
    it(`--expires-after ${bad} is refused before sending`, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['realtime', 'client-secret', '--expires-after', bad], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`--expires-after: ${bad} is not allowed: a lifetime from 1 to 3600 seconds`);
      expect(emu.requests()).toHaveLength(0);
    });
  }
});
