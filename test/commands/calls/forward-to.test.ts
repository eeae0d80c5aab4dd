// Issue 26 item 13: `svc calls listen --forward-to URL` relays each verified delivery, re-signed, to the user's
// server and prints the answer's status (a server that is down is reported, never fatal); the emulator's triggers
// cover mid-call events: the caller says a line now, the caller hangs up now.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { generateSecret, signedHeaders, verify } from 'svc-formats/webhooks';
import { realtimeLogs } from 'svc-emulator/realtime-log';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { spawnSvc } from '../../helpers/subprocess.js';
import { writeTemp } from '../../helpers/files.js';
import { fastEmulator } from '../realtime/talk-helpers.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());
beforeEach(() => fastEmulator(emu));

const SECRET = generateSecret();
const LOCAL_SECRET = generateSecret();

function event(callId: string): string {
  return JSON.stringify({
    object: 'event',
    id: `evt_${callId}`,
    type: 'realtime.call.incoming',
    created_at: Math.floor(Date.now() / 1000),
    data: { call_id: callId, sip_headers: [{ name: 'From', value: '<sip:+14155550123@example.invalid>' }] },
  });
}

/** the user's own webhook server: keeps each delivery, answers the statuses given in turn */
async function userServer(statuses: number[]) {
  const got: { headers: IncomingMessage['headers']; body: Buffer }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(statuses[got.length - 1] ?? 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got, close: () => server.close() };
}

/** `svc calls listen …` in the background; its URL once it listens */
async function listen(args: string[], env: Record<string, string> = {}) {
  const proc = spawnSvc(['calls', 'listen', '--port', '0', ...args], {
    emu,
    env: { SVC_WEBHOOK_SECRET: SECRET, ...env },
    timeout: 40_000,
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    proc.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    proc.then((r) => reject(new Error(`listen ended early (${r.exitCode}): ${stderr}`)), reject);
  });
  return { proc, url };
}

const deliver = (url: string, body: string, secret = SECRET, id = `msg_${body.length}_${Math.random()}`) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signedHeaders(secret, id, body) },
    body,
  });

describe('svc calls listen --forward-to', () => {
  it('relays verified deliveries re-signed with --forward-secret-file and prints each answer’s status', async () => {
    const user = await userServer([200, 500]);
    const file = writeTemp('forward-secret', `${LOCAL_SECRET}\n`);
    const l = await listen(['--forward-to', user.url, '--forward-secret-file', file, '--max-calls', '2']);
    expect((await deliver(l.url, event('rtc_forged'), generateSecret())).status).toBe(401);
    const first = event('rtc_one');
    expect((await deliver(l.url, first, SECRET, 'msg_one')).status).toBe(200);
    expect((await deliver(l.url, event('rtc_two'), SECRET, 'msg_two')).status).toBe(200);
    const r = await l.proc;
    user.close();
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(
      String(r.stdout)
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]),
    ).toEqual(['rtc_one', 'rtc_two']);
    const err = String(r.stderr);
    expect(err).toMatch(new RegExp(`→ 200 POST ${user.url} \\(\\d+ ms\\) realtime\\.call\\.incoming \\[msg_one\\]`));
    expect(err).toMatch(new RegExp(`→ 500 POST ${user.url} \\(\\d+ ms\\) realtime\\.call\\.incoming \\[msg_two\\]`));
    // only the verified two reached the user's server: the same bodies and ids, signed with the local secret
    expect(user.got).toHaveLength(2);
    expect(user.got[0]!.body.toString()).toBe(first);
    expect(user.got[0]!.headers['webhook-id']).toBe('msg_one');
    for (const d of user.got) expect(() => verify(LOCAL_SECRET, d.headers, d.body)).not.toThrow();
    expect(() => verify(SECRET, user.got[0]!.headers, user.got[0]!.body)).toThrow();
  });

  it('reports a server that is down, and goes on (exit 0)', async () => {
    const gone = await userServer([]);
    gone.close();
    const l = await listen(['--forward-to', gone.url, '--max-calls', '1']);
    expect((await deliver(l.url, event('rtc_down'))).status).toBe(200);
    const r = await l.proc;
    expect(r.exitCode).toBe(0);
    expect(String(r.stderr)).toMatch(/→ failed \(ECONNREFUSED\) POST http:\/\/127\.0\.0\.1:\d+\/hooks/);
  });

  it('SVC_FORWARD_SECRET signs the relayed deliveries (they are still checked with the signing secret)', async () => {
    const user = await userServer([204]);
    const l = await listen(['--forward-to', user.url, '--max-calls', '1'], { SVC_FORWARD_SECRET: LOCAL_SECRET });
    expect((await deliver(l.url, event('rtc_env'), SECRET, 'msg_env')).status).toBe(200);
    const r = await l.proc;
    user.close();
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(user.got).toHaveLength(1);
    expect(() => verify(LOCAL_SECRET, user.got[0]!.headers, user.got[0]!.body)).not.toThrow();
    expect(String(r.stderr)).not.toContain(LOCAL_SECRET);
  });

  it('refuses a bad --forward-to, a forwarding secret on argv, and its file without --forward-to', async () => {
    const env = { SVC_WEBHOOK_SECRET: SECRET };
    const bad = await svcInProcess(['calls', 'listen', '--forward-to', 'ftp://x/'], { emu, env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--forward-to: ftp://x/ is not allowed: an http(s) URL');
    // a secret as an argument: refused with the reason and the ways that keep it off argv, whatever else is given
    const argv = await svcInProcess(
      ['calls', 'listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--forward-secret', 'whsec_c2VjcmV0'],
      { emu, env },
    );
    expect(argv.exitCode).toBe(2);
    expect(argv.stderr).toContain(
      '--forward-secret: a secret given as an argument is visible to every user of this machine (ps, /proc) and ' +
        'kept in the shell history; give it in SVC_FORWARD_SECRET or with --forward-secret-file FILE (- reads stdin)',
    );
    const lone = await svcInProcess(['calls', 'listen', '--forward-secret-file', '/nonexistent'], { emu, env });
    expect(lone.exitCode).toBe(2);
    expect(lone.stderr).toContain('--forward-secret-file: /nonexistent is not allowed: only with --forward-to');
    const missing = await svcInProcess(
      ['calls', 'listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--forward-secret-file', '/nonexistent/s'],
      { emu, env },
    );
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/--forward-secret-file: cannot read \/nonexistent\/s/);
    const both = await svcInProcess(
      ['calls', 'listen', '--secret-file', '-', '--forward-to', 'http://127.0.0.1:9/h', '--forward-secret-file', '-'],
      { emu, input: 'whsec_c2VjcmV0\n' },
    );
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('--forward-secret-file');
    const empty = await svcInProcess(
      ['calls', 'listen', '--forward-to', 'http://127.0.0.1:9/h', '--forward-secret-file', '-'],
      { emu, env, input: '\n' },
    );
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toMatch(/--forward-secret-file.*empty stdin/);
  });

  it('refuses plain http to a host not loopback unless SVC_ALLOW_INSECURE_HTTP=1 (issue 36 item 10)', async () => {
    const env = { SVC_WEBHOOK_SECRET: SECRET, SVC_ALLOW_INSECURE_HTTP: undefined };
    const plain = await svcInProcess(['calls', 'listen', '--forward-to', 'http://hooks.example.com/in'], { emu, env });
    expect(plain.exitCode).toBe(2);
    expect(plain.stderr).toContain(
      '--forward-to: http://hooks.example.com/in is not allowed: https://, or http:// to a loopback address ' +
        '(set SVC_ALLOW_INSECURE_HTTP=1 to relay in clear to another host)',
    );
    expect(plain.stderr).not.toContain('listening');
    // with the variable set it is taken: the run goes on to the next check (the forwarding secret's file)
    const allowed = await svcInProcess(
      ['calls', 'listen', '--forward-to', 'http://hooks.example.com/in', '--forward-secret-file', '/nonexistent/s'],
      { emu, env: { ...env, SVC_ALLOW_INSECURE_HTTP: '1' } },
    );
    expect(allowed.exitCode).toBe(2);
    expect(allowed.stderr).not.toContain('--forward-to');
    expect(allowed.stderr).toMatch(/--forward-secret-file: cannot read \/nonexistent\/s/);
    // https and loopback need nothing
    for (const url of ['https://hooks.example.com/in', 'http://localhost:9/in']) {
      const r = await svcInProcess(
        ['calls', 'listen', '--forward-to', url, '--forward-secret-file', '/nonexistent/s'],
        {
          emu,
          env,
        },
      );
      expect(r.stderr, url).not.toContain('--forward-to');
    }
  });
});

describe('mid-call triggers', () => {
  it('caller-says: the caller says a line now; caller-hangup: the call ends and its session closes', async () => {
    // the scripted caller waits long after each answer: only the triggers speak and hang up here
    emu.core.settings.realtimeCallerPauseMs = 600_000;
    const started = await fetch(`${emu.url}/_emulator/trigger/incoming-call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ caller_script: ['hello'] }),
    });
    const id = ((await started.json()) as { call: { call_id: string } }).call.call_id;
    const noSession = await svcInProcess(['emulator', 'trigger', 'caller-says', id, '--say', 'anyone?'], { emu });
    expect(noSession.exitCode).toBe(1);
    expect(noSession.stderr).toContain(`No session has joined the call ${id} yet`);
    const ws = new WebSocket(`${emu.wsUrl}/v1/realtime?call_id=${id}`, {
      headers: { authorization: `Bearer ${emu.key}` },
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const log = () => realtimeLogs(emu.core).find((l) => l.call_id === id);
    while (!log()?.session_id) await new Promise((r) => setTimeout(r, 20));
    const says = await svcInProcess(['emulator', 'trigger', 'caller-says', id, '--say', 'Make it five people'], {
      emu,
    });
    expect(says.exitCode, says.stderr).toBe(0);
    while (!log()!.responses.some((r) => r.transcript.includes('Make it five people')))
      await new Promise((r) => setTimeout(r, 20));
    const hangup = await svcInProcess(['emulator', 'trigger', 'caller-hangup', id, '--json'], { emu });
    expect(hangup.exitCode, hangup.stderr).toBe(0);
    expect(JSON.parse(hangup.stdout)).toEqual({ call_id: id, status: 'ended', ended_by: 'caller' });
    expect(await closed).toEqual({ code: 1000, reason: 'call ended' });
    const again = await svcInProcess(['emulator', 'trigger', 'caller-hangup', id], { emu });
    expect(again.exitCode).toBe(5);
  });

  it('checks the arguments before sending (exit 2)', async () => {
    for (const [args, message] of [
      [['caller-says', 'call_x'], '--say: (none) is not allowed: exactly one line for caller-says'],
      [['caller-says', 'call_x', '--say', 'a', '--say', 'b'], 'exactly one line'],
      [['caller-hangup'], 'id: (none) is not allowed: the id of the call'],
      [
        ['caller-hangup', 'call_x', '--say', 'hi'],
        '--say: ["hi"] is not allowed: only with incoming-call or caller-says',
      ],
    ] as const) {
      emu.clearRequests();
      const r = await svcInProcess(['emulator', 'trigger', ...args], { emu });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });
});
