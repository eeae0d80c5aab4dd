// svc calls listen: a local webhook receiver that verifies Standard Webhooks signatures, prints each call and
// (with --join) joins it. Deliveries come from the test (signed by hand) and from the emulator's own
// realtime.call.incoming webhook of a v2 phone number.
import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signedHeaders, generateSecret } from 'svc-formats/webhooks';
import { assertNoSecrets } from '../../helpers/secrets.js';
import { spawnSvc, svcProcess } from '../../helpers/subprocess.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { fastEmulator, lastSession } from '../realtime/talk-helpers.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());
beforeEach(() => fastEmulator(emu));

const SECRET = generateSecret();

function event(callId: string, id = `evt_${callId}`): Record<string, unknown> {
  return {
    object: 'event',
    id,
    type: 'realtime.call.incoming',
    created_at: Math.floor(Date.now() / 1000),
    data: {
      call_id: callId,
      sip_headers: [
        { name: 'From', value: '<sip:+14155550123@example.invalid>' },
        { name: 'To', value: '<sip:+14155550999@example.invalid>' },
      ],
      metadata: {},
    },
  };
}

async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Start `svc calls listen …` and wait for the address it prints. */
async function listen(args: string[], env: Record<string, string> = {}) {
  const proc = spawnSvc(['calls', 'listen', '--port', '0', ...args], { emu, env, timeout: 40_000 });
  let stderr = '';
  let stdout = '';
  proc.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    proc.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    proc.then((r) => reject(new Error(`listen ended early (${r.exitCode}): ${stderr}`)), reject);
  });
  return { proc, url, out: () => stdout, err: () => stderr };
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('svc calls listen', () => {
  it('accepts a correctly signed webhook and prints the call; rejects bad, stale and unsigned deliveries', async () => {
    const l = await listen(['--secret', SECRET, '--max-calls', '1']);
    const body = JSON.stringify(event('rtc_signed'));
    // a signature made with another secret
    const forged = await post(l.url, body, signedHeaders(generateSecret(), 'evt_1', body));
    expect(forged.status).toBe(401);
    expect(forged.body.error).toContain('no webhook signature matches');
    // the right secret, but the body was changed after signing
    const tampered = await post(l.url, body.replace('rtc_signed', 'rtc_other'), signedHeaders(SECRET, 'evt_1', body));
    expect(tampered.status).toBe(401);
    // an old delivery (replay)
    const old = await post(l.url, body, signedHeaders(SECRET, 'evt_1', body, Math.floor(Date.now() / 1000) - 3600));
    expect(old.status).toBe(401);
    expect(old.body.error).toContain('more than 300 s away from now');
    // no signature headers at all, and a malformed one
    expect((await post(l.url, body, {})).status).toBe(400);
    expect(
      (await post(l.url, body, { ...signedHeaders(SECRET, 'evt_1', body), 'webhook-signature': 'garbage' })).status,
    ).toBe(400);
    expect(l.out()).toBe('');
    // finally the real thing
    const ok = await post(l.url, body, signedHeaders(SECRET, 'evt_1', body));
    expect(ok).toEqual({ status: 200, body: { ok: true } });
    const r = await l.proc;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    assertNoSecrets(l.out() + l.err(), 'calls listen');
    expect(l.out()).toBe('rtc_signed\t<sip:+14155550123@example.invalid>\t<sip:+14155550999@example.invalid>\n');
    expect(l.err()).toContain('warning: rejected a webhook (401): no webhook signature matches');
    expect(l.err()).toContain('warning: rejected a webhook (400): missing webhook-id');
  });

  it(
    'refuses a correctly signed body that is not an event object (null, an array, a number) with 400 and a ' +
      'warning, and keeps listening',
    async () => {
      const l = await listen(['--secret', SECRET, '--max-calls', '1']);
      for (const [i, body] of ['null', '[]', '42'].entries()) {
        const r = await post(l.url, body, signedHeaders(SECRET, `evt_bad_${i}`, body));
        expect(r.status).toBe(400);
        expect(r.body.error).toContain('not a JSON object');
      }
      const body = JSON.stringify(event('rtc_after_null'));
      expect((await post(l.url, body, signedHeaders(SECRET, 'evt_ok', body))).status).toBe(200);
      const r = await l.proc;
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(l.out()).toMatch(/^rtc_after_null\t/);
      expect(l.err()).toContain('warning: rejected a webhook (400): the body is not a JSON object');
    },
  );

  it(
    'takes the secret from SVC_WEBHOOK_SECRET, prints one JSON line per call with --json, and ignores repeated ' +
      'deliveries',
    async () => {
      const l = await listen(['--json', '--max-calls', '2'], { SVC_WEBHOOK_SECRET: SECRET });
      const first = JSON.stringify(event('rtc_a'));
      expect((await post(l.url, first, signedHeaders(SECRET, 'evt_a', first))).status).toBe(200);
      // the same delivery again (a retry): acknowledged, not printed twice
      expect((await post(l.url, first, signedHeaders(SECRET, 'evt_a', first))).status).toBe(200);
      const second = JSON.stringify(event('rtc_b'));
      expect((await post(l.url, second, signedHeaders(SECRET, 'evt_b', second))).status).toBe(200);
      const r = await l.proc;
      expect(r.exitCode, String(r.stderr)).toBe(0);
      const lines = l
        .out()
        .trim()
        .split('\n')
        .map((x) => JSON.parse(x));
      expect(lines).toEqual([JSON.parse(first), JSON.parse(second)]);
    },
  );

  it(
    '--join: the emulator delivers the signed webhook of an inbound call; the call is verified, printed and ' +
      'joined',
    async () => {
      const port = await freePort();
      const created = await fetch(`${emu.url}/v2/phone-numbers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          origin: 'svc_provisioned',
          name: 'front desk',
          webhook: { name: 'hook', url: `http://127.0.0.1:${port}/calls` },
        }),
      });
      const { phone_number, webhook } = (await created.json()) as {
        phone_number: { phone_number_id: string };
        webhook: { secret: string };
      };
      const proc = spawnSvc(
        [
          'calls',
          'listen',
          '--port',
          String(port),
          '--secret',
          webhook.secret,
          '--join',
          '--max-calls',
          '1',
          '--instructions',
          'You answer the front desk phone',
        ],
        { emu, timeout: 40_000 },
      );
      let stderr = '';
      await new Promise<void>((resolve, reject) => {
        proc.stderr!.on('data', (d: Buffer) => {
          stderr += d.toString();
          if (stderr.includes('listening for')) resolve();
        });
        proc.then(() => reject(new Error(stderr)), reject);
      });
      const res = await fetch(`${emu.url}/_emulator/calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          phone_number_id: phone_number.phone_number_id,
          caller_script: 'is the shop open today',
        }),
      });
      const { call, webhook: delivery } = (await res.json()) as {
        call: { call_id: string; from: string; to: string };
        webhook: { status: number; delivered: boolean };
      };
      expect(delivery).toMatchObject({ status: 200, delivered: true });
      const r = await proc;
      expect(r.exitCode, String(r.stderr)).toBe(0);
      const id = call.call_id;
      const log = lastSession(emu);
      expect(log.call_id).toBe(id);
      expect(log.session).toMatchObject({ instructions: 'You answer the front desk phone' });
      expect(String(r.stdout)).toBe(
        `${id}\t<sip:${call.from}@sip.emulator.invalid>\t<sip:${call.to}@sip.emulator.invalid>\n` +
          `[${id}] caller: is the shop open today\n[${id}] agent: ${log.responses[0]!.transcript}\n`,
      );
      expect(stderr + String(r.stderr)).toContain(`[${id}] call ${id} ended`);
    },
  );

  it('needs a secret, and checks its flags before listening (exit 2)', async () => {
    const none = await svcProcess(['calls', 'listen', '--port', '0'], { emu });
    expect(none.exitCode, String(none.stderr)).toBe(2);
    expect(none.stderr).toContain(
      '--secret: (none) is not allowed: the webhook signing secret, as --secret or in SVC_WEBHOOK_SECRET',
    );
    const port = await svcProcess(['calls', 'listen', '--port', '70000', '--secret', 's'], { emu });
    expect(port.exitCode, String(port.stderr)).toBe(2);
    expect(port.stderr).toContain('--port: 70000 is not allowed: a whole number from 0 to 65535');
    const tol = await svcProcess(['calls', 'listen', '--tolerance', '0', '--secret', 's'], { emu });
    expect(tol.exitCode, String(tol.stderr)).toBe(2);
    expect(tol.stderr).toContain('--tolerance: 0 is not allowed');
  });
});
