// svc calls join: a realtime session on a simulated inbound SIP call (the emulator plays the caller).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeTones } from 'svc-emulator/tones';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { spawnSvc } from '../../helpers/subprocess.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';
import { fastEmulator, lastSession } from '../realtime/talk-helpers.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());
beforeEach(() => fastEmulator(emu));

async function startCall(body: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${emu.url}/_emulator/calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const { call } = (await res.json()) as { call: { call_id: string } };
  return call.call_id;
}

/** The emulator's log of the newest session on call `id`. */
function lastSessionOf(id: string): ReturnType<typeof lastSession> | undefined {
  try {
    const log = lastSession(emu);
    return log.call_id === id ? log : undefined;
  } catch {
    return undefined;
  }
}

async function callStatus(id: string): Promise<string> {
  const res = await fetch(`${emu.url}/_emulator/calls/${id}`);
  return ((await res.json()) as { status: string }).status;
}

describe('svc calls join', () => {
  it('joins an active call and prints the transcript of the caller and the agent until the call ends', async () => {
    const id = await startCall({ caller_script: ['I would like to book a table', 'for two people'] });
    emu.clearRequests();
    const r = await svcInProcess(
      ['calls', 'join', id, '--instructions', 'You take restaurant bookings', '--voice', 'sal'],
      { emu },
    );
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const log = lastSession(emu);
    expect(log.call_id).toBe(id);
    expect(log.session).toMatchObject({ instructions: 'You take restaurant bookings', voice: 'sal' });
    expect(r.stdout).toBe(
      `caller: I would like to book a table\nagent: ${log.responses[0]!.transcript}\ncaller: for two ` +
        `people\nagent: ${log.responses[1]!.transcript}\n`,
    );
    expect(log.responses[0]!.transcript).toMatch(/^You said: I would like to book a table\./);
    expect(r.stderr).toContain(`connected to call ${id} (no local audio`);
    expect(r.stderr).toContain(`call ${id} ended (the server closed it: call ended; 2 answers)`);
    expect(await callStatus(id)).toBe('ended');
    // the connection named the call and no model; no audio was sent from here
    const ws = emu.requests().find((q) => q.method === 'WS')!;
    expect(ws.query).toEqual({ call_id: id });
    expect(log.appends).toEqual([]);
  });

  it("runs the agent's tools as local commands during the call, and can save the agent's audio", async () => {
    const created = await fetch(`${emu.url}/v1/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'shop',
        instructions: 'You track orders',
        tools: [
          {
            type: 'function',
            function: {
              name: 'order_status',
              description: 'status of an order',
              parameters: { type: 'object', properties: {} },
            },
          },
        ],
      }),
    });
    const { agent } = (await created.json()) as { agent: { agent_id: string } };
    const id = await startCall({ caller_script: 'what is my order status' });
    const dir = tempDir();
    writeFileSync(join(dir, 'status.sh'), '#!/bin/sh\ncat > /dev/null\necho shipped yesterday\n');
    const out = join(dir, 'agent.pcm');
    const r = await svcInProcess(
      [
        'calls',
        'join',
        id,
        '--agent',
        agent.agent_id,
        '--tool-cmd',
        `order_status=sh ${join(dir, 'status.sh')}`,
        '--output',
        out,
      ],
      { emu },
    );
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const answer = 'The order_status tool says: shipped yesterday';
    expect(r.stdout).toBe(`caller: what is my order status\nagent: ${answer}\n`);
    expect(lastSession(emu).session).toMatchObject({
      instructions: 'You track orders',
      tools: [{ name: 'order_status' }],
    });
    expect(decodeTones(readFileSync(out), 24000)).toBe(answer);
  });

  it('--json prints the session events as JSON lines', async () => {
    const id = await startCall({ caller_script: 'hello there' });
    const r = await svcInProcess(['calls', 'join', id, '--json'], { emu });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events[0].type).toBe('session.created');
    expect(events.find((e) => e.type === 'conversation.item.input_audio_transcription.completed').transcript).toBe(
      'hello there',
    );
    expect(events.at(-1).type).toBe('response.done');
  });

  it('ends when the call is hung up from elsewhere', async () => {
    emu.core.settings.realtimeCallerPauseMs = 60_000;
    const id = await startCall({ caller_script: ['first question', 'second question'] });
    const proc = spawnSvc(['calls', 'join', id], { emu });
    let stdout = '';
    await new Promise<void>((resolve, reject) => {
      proc.stdout!.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes('agent: ')) resolve();
      });
      proc.then(() => reject(new Error(`ended early: ${stdout}`)), reject);
    });
    const hang = await svcInProcess(['calls', 'hangup', id], { emu });
    expect(hang.exitCode, String(hang.stderr)).toBe(0);
    const r = await proc;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stdout)).not.toContain('second question');
    expect(String(r.stderr)).toContain('call ended; 1 answer)');
  });

  // issue 25, item 8: a call that ends normally is exit 0, even while the agent is speaking; only a cut session is 1
  for (const [how, end] of [
    ['hung up', (id: string) => svcInProcess(['calls', 'hangup', id], { emu })],
    ['transferred', (id: string) => svcInProcess(['calls', 'refer', id, '--to', 'tel:+14155550100'], { emu })],
  ] as const) {
    it(`a call ${how} in the middle of the agent's answer ends with exit 0 and keeps what was said`, async () => {
      // the answer's audio at real time: it lasts long enough to be cut
      Object.assign(emu.core.settings, { realtimePace: 1, realtimeCallerPauseMs: 60_000 });
      const id = await startCall({ caller_script: ['tell me everything about your opening hours please'] });
      const configDir = tempDir();
      const proc = spawnSvc(['calls', 'join', id], { emu, configDir });
      // the agent has begun speaking (its first audio went out) and has not finished
      for (let i = 0; i < 400; i++) {
        const answer = lastSessionOf(id)?.responses[0];
        if (answer?.audio_start !== undefined && answer.done_at === undefined) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(lastSessionOf(id)?.responses[0]?.done_at).toBeUndefined();
      const ended = await end(id);
      expect(ended.exitCode, ended.stderr).toBe(0);
      const r = await proc;
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(String(r.stderr)).not.toMatch(/error/);
      expect(String(r.stderr)).toContain(`call ${id} ended (the server closed it: call ended; 1 answer)`);
      // in a pipe a turn is printed once complete: the answer cut by the end of the call is printed as it stands
      expect(String(r.stdout)).toMatch(
        /^caller: tell me everything about your opening hours please\nagent: .*\[call ended\]\n$/,
      );
      // the call log agrees: the session ended with the call (1000), no error, what the agent said kept
      const logs = join(configDir, 'data', 'logs');
      const rec = readdirSync(logs)
        .flatMap((f) => readFileSync(join(logs, f), 'utf8').split('\n').filter(Boolean))
        .map((l) => JSON.parse(l))
        .find((x) => x.method === 'WS');
      expect(rec).toMatchObject({ path: '/v1/realtime', status: 101, close_code: 1000 });
      expect(rec.error).toBeUndefined();
      expect(rec.answer).toBeTruthy();
    });
  }

  it('fails clearly on an unknown or ended call (exit 5)', async () => {
    const r = await svcInProcess(['calls', 'join', 'rtc_doesnotexist'], { emu });
    expect(r.exitCode, String(r.stderr)).toBe(5);
    expect(r.stderr).toContain('error: Call rtc_doesnotexist was not found or is not active');
    const id = await startCall();
    await svcInProcess(['calls', 'hangup', id], { emu });
    const ended = await svcInProcess(['calls', 'join', id], { emu });
    expect(ended.exitCode, String(ended.stderr)).toBe(5);
    expect(ended.stderr).toContain(`Call ${id} was not found or is not active`);
  });

  it('rejects a malformed call id and bad session flags before connecting (exit 2)', async () => {
    emu.clearRequests();
    const bad = await svcInProcess(['calls', 'join', 'has space'], { emu });
    expect(bad.exitCode, String(bad.stderr)).toBe(2);
    expect(bad.stderr).toContain('CALL_ID: has space is not allowed');
    const voice = await svcInProcess(['calls', 'join', 'rtc_x', '--voice', 'nobody'], { emu });
    expect(voice.exitCode, String(voice.stderr)).toBe(2);
    expect(voice.stderr).toContain('--voice: nobody is not allowed');
    expect(emu.requests()).toHaveLength(0);
  });

  it('a device flag for local audio the call does not use is exit 2 before anything is sent, not ignored', async () => {
    const dir = tempDir();
    const cases = [
      [
        ['--output-device', 'studio'],
        '--output-device: studio is not allowed: only when the audio plays on the speaker (--output speaker); ' +
          'no --output was given',
      ],
      [
        ['--output', join(dir, 'agent.wav'), '--output-device', '1'],
        '--output-device: 1 is not allowed: only when the audio plays on the speaker (--output speaker); ' +
          `--output is ${join(dir, 'agent.wav')}`,
      ],
      [
        ['--input-device', 'headset'],
        '--input-device: headset is not allowed: only with the microphone (--input mic); no --input was given',
      ],
    ] as const;
    const id = await startCall();
    emu.clearRequests();
    // --agent would be fetched first: the check comes before it
    for (const [flags, message] of cases) {
      const r = await svcInProcess(['calls', 'join', id, '--agent', 'agent_1', ...flags], { emu });
      expect(r.exitCode, String(r.stderr)).toBe(2);
      expect(r.stderr).toContain(`error: ${message}`);
    }
    expect(emu.requests()).toHaveLength(0);
    expect(readdirSync(dir)).toEqual([]);
    expect(lastSessionOf(id)).toBeUndefined();
    await svcInProcess(['calls', 'hangup', id], { emu });
  });
});
