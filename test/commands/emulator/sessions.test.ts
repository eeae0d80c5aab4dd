// Issue 26 items 10 and 14: WebSocket sessions in the request log get a status when they end, so `svc emulator
// requests --follow` goes on printing after them, with no listener piling up per poll; `svc emulator sessions`
// shows each session: its id, the events each way, how it ended.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { spawnSvc } from '../../helpers/subprocess.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

/** a realtime session: session.update, then closed by the client with 1000 */
async function realtimeSession(): Promise<string> {
  const ws = new WebSocket(`${emu.wsUrl}/v1/realtime`, { headers: { authorization: `Bearer ${emu.key}` } });
  let id = '';
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.on('message', (d) => {
      const ev = JSON.parse(d.toString()) as { type: string; session?: { id: string } };
      if (ev.type === 'session.created') {
        id = ev.session!.id;
        ws.send(JSON.stringify({ type: 'session.update', session: { instructions: 'be brief' } }));
      }
      if (ev.type === 'session.updated') ws.close(1000, 'done here');
    });
    ws.once('close', () => resolve());
  });
  return id;
}

/** an upgrade the emulator refuses (an injected 503) */
async function refusedSession(): Promise<void> {
  emu.faults.add({ kind: 'status', status: 503, method: 'WS', path: '^/v1/realtime' });
  const ws = new WebSocket(`${emu.wsUrl}/v1/realtime`, { headers: { authorization: `Bearer ${emu.key}` } });
  await new Promise<void>((resolve) => {
    ws.once('error', () => resolve());
    ws.once('close', () => resolve());
  });
}

describe('WebSocket sessions in the request log', () => {
  it('requests --follow prints past WebSocket sessions, and adds no listener per poll', async () => {
    emu.clearRequests();
    const follow = spawnSvc(['emulator', 'requests', '--follow', '--interval', '10'], { emu, timeout: 60_000 });
    let out = '';
    follow.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const seen = async (n: number) => {
      while (out.split('\n').filter((l) => l.includes('\tGET\t/v1/me\t')).length < n)
        await new Promise((r) => setTimeout(r, 20));
    };
    await realtimeSession();
    await refusedSession();
    // each request is printed before the next is made: 25 rounds are at least 25 polls
    for (let i = 1; i <= 25; i++) {
      expect((await svcInProcess(['whoami'], { emu })).exitCode).toBe(0);
      await seen(i);
    }
    follow.kill('SIGINT');
    const r = await follow;
    expect(r.exitCode).toBe(130);
    expect(out).toMatch(/\tWS\t\/v1\/realtime\t101\t[\d.]+\t0\t/);
    expect(out).toMatch(/\tWS\t\/v1\/realtime\t503\t/);
    expect(String(r.stderr)).not.toMatch(/MaxListenersExceededWarning|Warning/);
  });

  it('svc emulator sessions: the session id, events each way, how it ended (pipe, --json)', async () => {
    emu.clearRequests();
    const id = await realtimeSession();
    await refusedSession();
    const r = await svcInProcess(['emulator', 'sessions'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const [ok, refused] = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(ok!.slice(1, 4)).toEqual(['/v1/realtime', id, 'closed 1000 done here']);
    expect(ok![5]).toBe('session.update×1');
    expect(ok![6]).toMatch(/^session\.created×1 .*session\.updated×1/);
    expect(refused!.slice(1, 4)).toEqual(['/v1/realtime', '-', 'refused 503']);
    const json = await svcInProcess(['emulator', 'sessions', '--json'], { emu });
    const rec = JSON.parse(json.stdout.trim().split('\n')[0]!);
    expect(rec).toMatchObject({
      method: 'WS',
      status: 101,
      ws: { session_id: id, events_in: { 'session.update': 1 }, close_code: 1000, close_reason: 'done here' },
    });
    expect(rec.ws.events_out['session.created']).toBe(1);
  });

  it('a terminal gets a table; no sessions is said so', async () => {
    emu.clearRequests();
    const none = await svcInProcess(['emulator', 'sessions'], { emu, tty: true, columns: 200 });
    expect(none.stderr + none.stdout).toContain('no WebSocket sessions logged');
    await realtimeSession();
    const r = await svcInProcess(['emulator', 'sessions'], { emu, tty: true, columns: 200 });
    expect(r.stdout).toMatch(/TIME +PATH +SESSION +END +MS +IN +OUT +REQUEST ID/);
    expect(r.stdout).toContain('closed 1000 done here');
  });
});
