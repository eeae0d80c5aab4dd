// The emulator's request log keeps no credential (issue 26, item 4): a secret sent through every carrier (headers of
// every scheme, cookies, query parameters, JSON and multipart bodies, a WebSocket subprotocol) is in neither the
// log, the admin API nor `svc emulator requests` (table and --json).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu.close();
});

const secrets: Record<string, string> = {};
/** A fresh secret for one carrier (`shape` gives its prefix: a known secret shape for the body carriers). */
const secret = (carrier: string, shape = 'plain-') => {
  secrets[carrier] = `${shape}${randomBytes(12).toString('hex')}`;
  return secrets[carrier]!;
};

async function send(path: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<void> {
  const r = await fetch(`${emu.url}${path}`, init);
  await r.arrayBuffer();
}

async function sendThroughEveryCarrier(): Promise<void> {
  const auth = { authorization: `Bearer ${emu.key}` };
  await send('/v1/models', { headers: { authorization: `Bearer ${secret('authorization: Bearer')}` } });
  const basic = Buffer.from(`user:${secret('authorization: Basic')}`).toString('base64');
  secrets['authorization: Basic (base64)'] = basic;
  await send('/v1/models', { headers: { authorization: `Basic ${basic}` } });
  await send('/v1/models', { headers: { authorization: `Key ${secret('authorization: Key')}` } });
  await send('/v1/models', { headers: { authorization: secret('authorization: bare') } });
  for (const h of ['x-api-key', 'api-key', 'x-goog-api-key', 'proxy-authorization', 'x-emulator-admin-token'])
    await send('/v1/models', { headers: { ...auth, [h]: secret(h) } });
  await send('/v1/models', { headers: { ...auth, cookie: `session=${secret('cookie')}; theme=dark` } });
  for (const p of ['api_key', 'key', 'token', 'access_token'])
    await send(`/v1/models?${p}=${secret(`?${p}=`)}&limit=5`, { headers: auth });
  await send(`/v1/models?x=${emu.key}`, { headers: auth });
  const json = { ...auth, 'content-type': 'application/json' };
  await send('/v1/chat/completions', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      model: 'svc-4',
      messages: [
        { role: 'user', content: `my key is ${secret('body: sk- key', 'sk-')} and ${emu.key}` },
        { role: 'user', content: `use Bearer ${secret('body: Bearer', 'tok')}` },
        { role: 'user', content: `the hook secret is ${secret('body: whsec_', 'whsec_')}` },
      ],
    }),
  });
  await send('/v1/agents', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ name: 'a', api_key: secret('body: "api_key"'), password: secret('body: "password"') }),
  });
  const form = new FormData();
  form.append('purpose', 'assistants');
  form.append('file', new Blob([`key=${secret('multipart body', 'sk-')}`]), 'notes.txt');
  await send('/v1/files', { method: 'POST', headers: auth, body: form });
  const ws = new WebSocket(`${emu.wsUrl}/v1/realtime`, [
    'realtime',
    `svc-client-secret.${secret('subprotocol', 'svc-cs-')}`,
  ]);
  await new Promise<void>((resolve) => {
    ws.once('close', () => resolve());
    ws.once('error', () => resolve());
  });
}

function leaked(text: string): string[] {
  return Object.entries(secrets)
    .filter(([, s]) => text.includes(s))
    .map(([carrier]) => carrier);
}

describe('the request log redacts every credential carrier', () => {
  it('keeps no secret in the log, the admin API or svc emulator requests (table, --json)', async () => {
    await sendThroughEveryCarrier();
    expect(Object.keys(secrets).length).toBeGreaterThan(20);
    const log = JSON.stringify(emu.requests());
    expect(emu.requests().length).toBeGreaterThanOrEqual(18);
    expect(leaked(log)).toEqual([]);
    expect(log).not.toContain(emu.key);
    const admin = await (await fetch(`${emu.url}/_emulator/requests`)).text();
    expect(leaked(admin)).toEqual([]);
    const asJson = await svcInProcess(['emulator', 'requests', '--json'], { emu });
    expect(asJson.exitCode).toBe(0);
    expect(leaked(asJson.stdout)).toEqual([]);
    const table = await svcInProcess(['emulator', 'requests'], { emu });
    expect(table.exitCode).toBe(0);
    expect(leaked(table.stdout + table.stderr)).toEqual([]);
    // the carriers were logged, as present or redacted
    const rows = asJson.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { headers: Record<string, string>; query: Record<string, string>; body?: string });
    for (const h of ['authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'cookie', 'proxy-authorization'])
      expect(
        rows.some((r) => r.headers[h] === '[present]'),
        h,
      ).toBe(true);
    for (const p of ['api_key', 'key', 'token', 'access_token'])
      expect(
        rows.some((r) => r.query[p] === '[REDACTED]'),
        p,
      ).toBe(true);
    expect(rows.some((r) => r.query.limit === '5')).toBe(true);
    const bodies = rows.map((r) => r.body ?? '').join('\n');
    expect(bodies).toContain('Bearer [REDACTED]');
    expect(bodies).toContain('"api_key":"[REDACTED]"');
    expect(bodies).toContain('key=[REDACTED]');
    expect(rows.some((r) => String(r.headers['sec-websocket-protocol']).includes('svc-client-secret.[REDACTED]'))).toBe(
      true,
    );
  });
});
