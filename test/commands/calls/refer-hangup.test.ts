// Inbound calls on the emulator: the signed realtime.call.incoming webhook reaches a local HTTP server and
// verifies; refer and hang-up end the call; an ended or unknown call is 404; target URIs are checked first.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { verify, WebhookVerificationError } from 'svc-formats/webhooks';

let emu: TestEmulator;
let hooks: Server;
let hookUrl: string;
const received: { headers: IncomingMessage['headers']; body: string }[] = [];
let secret: string;
let numberId: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  hooks = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks/calls`;
  const r = await svcInProcess(
    [
      'phone',
      'v2',
      'create',
      '--origin',
      'svc_provisioned',
      '--name',
      'inbound',
      '--webhook-url',
      hookUrl,
      '--json',
      '--yes',
    ],
    { emu },
  );
  const created = JSON.parse(r.stdout);
  secret = created.webhook.secret;
  numberId = created.phone_number.phone_number_id;
});
afterAll(async () => {
  await new Promise<void>((r) => hooks.close(() => r()));
  await emu.close();
});

async function startCall(body: Record<string, unknown> = {}) {
  const res = await fetch(`${emu.url}/_emulator/calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { call: Record<string, any>; webhook: Record<string, any> | null };
}

async function callStatus(id: string): Promise<Record<string, any>> {
  return (await (await fetch(`${emu.url}/_emulator/calls/${id}`)).json()) as Record<string, any>;
}

describe('inbound call webhook', () => {
  it('is delivered to the registered URL, signed with the number secret, and verifies', async () => {
    received.length = 0;
    const { call, webhook } = await startCall({ phone_number_id: numberId, from: '+12125550199' });
    expect(webhook).toMatchObject({ url: hookUrl, status: 204, delivered: true });
    expect(call).toMatchObject({ status: 'active', from: '+12125550199', phone_number_id: numberId });
    expect(received).toHaveLength(1);
    const { headers, body } = received[0]!;
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(() => verify(secret, headers, body)).not.toThrow();
    const event = JSON.parse(body);
    expect(event).toMatchObject({
      object: 'event',
      type: 'realtime.call.incoming',
      data: { call_id: call.call_id, metadata: {} },
    });
    expect(event.id).toBe(headers['webhook-id']);
    expect(event.data.sip_headers).toContainEqual({ name: 'From', value: expect.stringContaining('+12125550199') });
    // a changed body or another secret does not verify
    expect(() => verify(secret, headers, body.replace('incoming', 'incomin9'))).toThrow(WebhookVerificationError);
    expect(() => verify(`whsec_${Buffer.from('another secret').toString('base64')}`, headers, body)).toThrow(
      /no webhook signature matches/,
    );
  });
});

describe('svc calls refer / hangup', () => {
  it('refer transfers an active call (the call then ends); --json prints the reply', async () => {
    const { call } = await startCall({ phone_number_id: numberId });
    emu.clearRequests();
    const r = await svcInProcess(['calls', 'refer', call.call_id, '--to', 'tel:+14155550100', '--json'], { emu });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({});
    expect(JSON.parse(emu.requests()[0]!.body!)).toEqual({ target_uri: 'tel:+14155550100' });
    expect(await callStatus(call.call_id)).toMatchObject({ status: 'ended', transferred_to: 'tel:+14155550100' });
    const again = await svcInProcess(['calls', 'hangup', call.call_id], { emu });
    expect(again.exitCode).toBe(5);
    expect(again.stderr).toContain('not found or no longer active');
  });

  it('refer accepts sip:user@host; hangup ends a call (message on stderr, nothing on stdout)', async () => {
    const a = (await startCall()).call;
    const sip = await svcInProcess(['calls', 'refer', a.call_id, '--to', 'sip:desk@pbx.example.com'], { emu });
    expect(sip.exitCode).toBe(0);
    expect(sip.stdout).toBe('');
    expect(sip.stderr).toContain(`transferred call ${a.call_id} to sip:desk@pbx.example.com`);
    const b = (await startCall()).call;
    const h = await svcInProcess(['calls', 'hangup', b.call_id], { emu });
    expect(h.exitCode).toBe(0);
    expect(h.stdout).toBe('');
    expect(h.stderr).toContain(`hung up call ${b.call_id}`);
    expect(await callStatus(b.call_id)).toMatchObject({ status: 'ended', ended_by: 'hangup' });
  });

  it('an unknown call is 404 (exit 5)', async () => {
    const r = await svcInProcess(['calls', 'hangup', 'rtc_unknown'], { emu });
    expect(r.exitCode).toBe(5);
  });

  const bad: [string, string][] = [
    ['tel without +', 'tel:14155550100'],
    ['tel with letters', 'tel:+1415CALLME'],
    ['tel too long (E.164 is at most 15 digits)', 'tel:+1234567890123456'],
    ['sip without user', 'sip:pbx.example.com'],
    ['other scheme', 'https://example.com'],
    ['bare number', '+14155550100'],
  ];
  for (const [rule, uri] of bad) {
    it(`refer refuses ${rule} before sending`, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['calls', 'refer', 'rtc_1', '--to', uri], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`--to: ${uri} is not allowed: tel:+<E.164 number>`);
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('refer without --to is a usage error', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['calls', 'refer', 'rtc_1'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--to is required');
    expect(emu.requests()).toHaveLength(0);
  });
});
