// Issue 31: `agents get` shows the phone numbers assigned to the agent (v1 numbers by their agent_id, v2 numbers
// routed to it), read through the phone numbers API: in a pipe, as JSON, and on a real terminal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcOnTerminal } from '../../helpers/terminal.js';

let emu: TestEmulator;
let agentId: string;
let bare: string;
let v1: { phone_number_id: string; phone_number: string };
let v2: { phone_number_id: string; phone_number: string };

beforeAll(async () => {
  emu = await startTestEmulator();
  const create = async (name: string) =>
    (
      await svcInProcess(['agents', 'create', '--name', name, '--json', '--jq', '.agent.agent_id'], { emu })
    ).stdout.trim();
  agentId = await create('front desk');
  bare = await create('no numbers');
  const bought = await svcInProcess(['phone', 'buy', '--area-code', '415', '--name', 'main', '--yes', '--json'], {
    emu,
  });
  v1 = JSON.parse(bought.stdout).phone_number;
  expect(
    (await svcInProcess(['agents', 'update', agentId, '--phone-number', v1.phone_number_id], { emu })).exitCode,
  ).toBe(0);
  // another v1 number, not assigned, must not show
  await svcInProcess(['phone', 'buy', '--area-code', '212', '--name', 'spare', '--yes'], { emu });
  const made = await svcInProcess(
    ['phone', 'v2', 'create', '--origin', 'svc_provisioned', '--name', 'sip', '--agent', agentId, '--yes', '--json'],
    { emu },
  );
  v2 = JSON.parse(made.stdout).phone_number;
});
afterAll(() => emu.close());

describe('svc agents get: phone numbers', () => {
  it('in a pipe: a phone_numbers line with each number, its id and its API version', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'get', agentId], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`agent_id\t${agentId}\n`);
    expect(r.stdout).toContain(
      `phone_numbers\t${v1.phone_number} (${v1.phone_number_id}, v1), ${v2.phone_number} (${v2.phone_number_id}, v2)\n`,
    );
    expect(emu.requests().map((q) => [`${q.method} ${q.path}`, q.query])).toEqual([
      [`GET /v1/agents/${agentId}`, {}],
      ['GET /v1/phone-numbers', { limit: '1000' }],
      ['GET /v2/phone-numbers', { agent_id: agentId, limit: '100' }],
    ]);
    const none = await svcInProcess(['agents', 'get', bare], { emu });
    expect(none.stdout).toContain('phone_numbers\t-\n');
  });

  it('--json: the reply as sent ({agent}) with phone_numbers added, each as its list sent it', async () => {
    const r = await svcInProcess(['agents', 'get', agentId, '--json'], { emu });
    expect(r.exitCode).toBe(0);
    const got = JSON.parse(r.stdout);
    expect(got.agent.agent_id).toBe(agentId);
    expect(got.phone_numbers).toEqual([
      expect.objectContaining({ phone_number_id: v1.phone_number_id, agent_id: agentId, api: 'v1' }),
      expect.objectContaining({ phone_number_id: v2.phone_number_id, api: 'v2' }),
    ]);
    const jq = await svcInProcess(['agents', 'get', agentId, '--jq', '.phone_numbers[].phone_number_id'], { emu });
    expect(jq.stdout).toBe(`${v1.phone_number_id}\n${v2.phone_number_id}\n`);
  });

  it('on a terminal: the numbers under the agent, in the aligned key column', async () => {
    const r = await svcOnTerminal(['agents', 'get', agentId], { emu, cols: 120 });
    expect(r.exitCode, r.screen).toBe(0);
    const lines = r.screen.split(/\r?\n/);
    const name = lines.find((l) => /^name +front desk/.test(l))!;
    const phones = lines.find((l) => l.startsWith('phone_numbers'))!;
    expect(phones).toContain(`${v1.phone_number} (${v1.phone_number_id}, v1)`);
    expect(phones.indexOf('+')).toBe(name.indexOf('front desk'));
  });

  it('when the numbers cannot be read, a warning; the agent is still shown (exit 0)', async () => {
    emu.faults.add({ kind: 'status', status: 403, path: '^/v1/phone-numbers', message: 'no phone access' });
    const r = await svcInProcess(['agents', 'get', agentId], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`agent_id\t${agentId}\n`);
    expect(r.stdout).not.toContain('phone_numbers');
    expect(r.stderr).toContain(`warning: the phone numbers of agent ${agentId} could not be read`);
  });
});
