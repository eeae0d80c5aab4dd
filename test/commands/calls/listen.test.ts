// svc calls listen: a local webhook receiver that verifies Standard Webhooks signatures, prints each call and
// (with --join) joins it. Deliveries come from the test (signed by hand) and from the emulator's own
// realtime.call.incoming webhook of a v2 phone number.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signedHeaders, generateSecret } from 'svc-formats/webhooks';
import { assertNoSecrets, registerSecret } from '../../helpers/secrets.js';
import { tempDir } from '../../helpers/files.js';
import { spawnSvc } from '../../helpers/subprocess.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { fastEmulator, lastSession } from '../realtime/talk-helpers.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());
beforeEach(() => fastEmulator(emu));

const SECRET = generateSecret();
// never printed: not by a refusal of --secret, not in the memory of deliveries
registerSecret(SECRET);

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
    const l = await listen(['--max-calls', '1'], { SVC_WEBHOOK_SECRET: SECRET });
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
      const l = await listen(['--max-calls', '1'], { SVC_WEBHOOK_SECRET: SECRET });
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
          '--secret-file',
          '-',
          '--join',
          '--max-calls',
          '1',
          '--instructions',
          'You answer the front desk phone',
        ],
        // the secret on stdin, as from a password manager
        { emu, timeout: 40_000, input: `${webhook.secret}\n` },
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
    const none = await svcInProcess(['calls', 'listen', '--port', '0'], { emu });
    expect(none.exitCode, String(none.stderr)).toBe(2);
    expect(none.stderr).toContain(
      'SVC_WEBHOOK_SECRET: (none) is not allowed: the webhook signing secret, in SVC_WEBHOOK_SECRET or a file ' +
        'given with --secret-file (- for stdin)',
    );
    const env = { SVC_WEBHOOK_SECRET: 's' };
    const port = await svcInProcess(['calls', 'listen', '--port', '70000'], { emu, env });
    expect(port.exitCode, String(port.stderr)).toBe(2);
    expect(port.stderr).toContain('--port: 70000 is not allowed: a whole number from 0 to 65535');
    const tol = await svcInProcess(['calls', 'listen', '--tolerance', '0'], { emu, env });
    expect(tol.exitCode, String(tol.stderr)).toBe(2);
    expect(tol.stderr).toContain('--tolerance: 0 is not allowed');
  });
});

describe('the signing secret stays off the command line (issue 25, item 2)', () => {
  it('--secret VALUE is refused (exit 2) with the reason, before listening', async () => {
    const r = await svcInProcess(['calls', 'listen', '--port', '0', '--secret', SECRET], { emu });
    expect(r.exitCode, String(r.stderr)).toBe(2);
    expect(r.stderr).toContain(
      '--secret: a secret given as an argument is visible to every user of this machine (ps, /proc) and kept in ' +
        'the shell history; give it in SVC_WEBHOOK_SECRET or with --secret-file FILE (- reads stdin)',
    );
    expect(r.stderr).not.toContain('listening');
  });

  it('--secret-file FILE reads it (not its trailing newline); a missing or empty file is exit 2', async () => {
    const dir = tempDir('svc-secret-');
    const file = join(dir, 'secret');
    writeFileSync(file, `${SECRET}\n`, { mode: 0o600 });
    const l = await listen(['--secret-file', file, '--max-calls', '1']);
    const body = JSON.stringify(event('rtc_from_file'));
    expect((await post(l.url, body, signedHeaders(SECRET, 'evt_file', body))).status).toBe(200);
    expect((await l.proc).exitCode).toBe(0);
    expect(l.out()).toMatch(/^rtc_from_file\t/);
    const missing = await svcInProcess(['calls', 'listen', '--secret-file', join(dir, 'nope')], { emu });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`--secret-file: cannot read ${join(dir, 'nope')}: no such file or directory`);
    writeFileSync(join(dir, 'empty'), '\n');
    const empty = await svcInProcess(['calls', 'listen', '--secret-file', join(dir, 'empty')], { emu });
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain('--secret-file: (empty');
  });
});

describe('replays across restarts (issue 25, item 3)', () => {
  it('a delivery acknowledged before a restart is acknowledged again, not printed as a new call', async () => {
    const data = tempDir('svc-listen-data-');
    const env = { SVC_WEBHOOK_SECRET: SECRET, SVC_DATA_DIR: data };
    const body = JSON.stringify(event('rtc_once'));
    const headers = signedHeaders(SECRET, 'evt_once', body);
    const first = await listen(['--max-calls', '1'], env);
    expect((await post(first.url, body, headers)).status).toBe(200);
    expect((await first.proc).exitCode).toBe(0);
    expect(first.out()).toMatch(/^rtc_once\t/);
    // the listener restarts; the sender retries the delivery it already got a 200 for (or someone replays it)
    const second = await listen(['--max-calls', '1'], env);
    expect(await post(second.url, body, headers)).toEqual({ status: 200, body: { ok: true } });
    const next = JSON.stringify(event('rtc_next'));
    expect((await post(second.url, next, signedHeaders(SECRET, 'evt_next', next))).status).toBe(200);
    expect((await second.proc).exitCode).toBe(0);
    expect(second.out()).toBe('rtc_next\t<sip:+14155550123@example.invalid>\t<sip:+14155550999@example.invalid>\n');
    // the memory: one file named by a hash of the secret (never the secret), 0600, ids and timestamps only
    const files = readdirSync(join(data, 'webhooks'));
    expect(files).toHaveLength(1);
    const memory = join(data, 'webhooks', files[0]!);
    expect(statSync(memory).mode & 0o777).toBe(0o600);
    const text = readFileSync(memory, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SECRET.slice('whsec_'.length));
    expect(
      text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(['evt_once', 'evt_next']);
  });

  it('remembers a delivery for the tolerance window only: older lines are dropped when a listener starts', async () => {
    const data = tempDir('svc-listen-data-');
    const env = { SVC_WEBHOOK_SECRET: SECRET, SVC_DATA_DIR: data };
    const first = await listen(['--max-calls', '1'], env);
    const body = JSON.stringify(event('rtc_kept'));
    expect((await post(first.url, body, signedHeaders(SECRET, 'evt_kept', body))).status).toBe(200);
    await first.proc;
    const memory = join(data, 'webhooks', readdirSync(join(data, 'webhooks'))[0]!);
    // a delivery of an hour ago, long past the 300 s window (its signature would be refused anyway)
    writeFileSync(memory, `${JSON.stringify({ id: 'evt_old', ts: Math.floor(Date.now() / 1000) - 3600 })}\n`, {
      flag: 'a',
    });
    const second = await listen(['--max-calls', '1'], env);
    const next = JSON.stringify(event('rtc_after'));
    expect((await post(second.url, next, signedHeaders(SECRET, 'evt_after', next))).status).toBe(200);
    await second.proc;
    const ids = readFileSync(memory, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual(['evt_kept', 'evt_after']);
  });
});
