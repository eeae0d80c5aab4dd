// The whole life of an agent and a phone number, with the state checked through `get` after every step.
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

const json = (s: string) => JSON.parse(s) as Record<string, any>;

async function phoneAgent(id: string): Promise<string | null> {
  const r = await svcInProcess(['phone', 'get', id, '--json', '--jq', '.phone_number'], { emu });
  expect(r.exitCode).toBe(0);
  return json(r.stdout).agent_id;
}

async function agentName(id: string): Promise<string> {
  const r = await svcInProcess(['agents', 'get', id, '--json', '--jq', '.agent'], { emu });
  expect(r.exitCode).toBe(0);
  return json(r.stdout).name;
}

describe('agent and phone number lifecycle', () => {
  it('buy, create, assign, conflict, unassign, reassign, release, delete', async () => {
    // buy
    const bought = await svcInProcess(
      ['phone', 'buy', '--area-code', '415', '--name', 'front desk', '--yes', '--json', '--jq', '.phone_number'],
      { emu },
    );
    expect(bought.exitCode).toBe(0);
    const pn = json(bought.stdout);
    expect(pn.phone_number).toMatch(/^\+1415\d{7}$/);
    expect(pn.agent_id).toBeNull();
    expect(await phoneAgent(pn.phone_number_id)).toBeNull();

    // two agents
    const a = json(
      (
        await svcInProcess(['agents', 'create', '--name', 'alpha', '--voice', 'eve', '--json', '--jq', '.agent'], {
          emu,
        })
      ).stdout,
    );
    const b = json(
      (
        await svcInProcess(['agents', 'create', '--name', 'bravo', '--voice', 'ara', '--json', '--jq', '.agent'], {
          emu,
        })
      ).stdout,
    );
    expect(await agentName(a.agent_id)).toBe('alpha');
    expect(await agentName(b.agent_id)).toBe('bravo');

    // assign to alpha
    const assign = await svcInProcess(['agents', 'update', a.agent_id, '--phone-number', pn.phone_number_id], { emu });
    expect(assign.exitCode).toBe(0);
    expect(assign.stderr).toContain(`assigned phone number ${pn.phone_number_id}`);
    expect(await phoneAgent(pn.phone_number_id)).toBe(a.agent_id);

    // bravo cannot take it: 409 naming alpha, nothing changes
    emu.clearRequests();
    const conflict = await svcInProcess(
      ['agents', 'update', b.agent_id, '--phone-number', pn.phone_number_id, '--name', 'bravo 2'],
      { emu },
    );
    expect(conflict.exitCode).toBe(1);
    expect(conflict.stderr).toContain(`phone number ${pn.phone_number_id} is already assigned to agent ${a.agent_id}`);
    expect(conflict.stderr).toContain(`svc agents update ${a.agent_id} --unassign-phone`);
    expect(conflict.stderr).toContain('HTTP 409');
    // one PATCH (not retried), then the look-up of the holder
    expect(emu.requests().filter((r) => r.method === 'PATCH')).toHaveLength(1);
    expect(await phoneAgent(pn.phone_number_id)).toBe(a.agent_id);
    expect(await agentName(b.agent_id)).toBe('bravo'); // atomic: the name was not written either

    // unassign from alpha: the PATCH carries phone_number_id ""
    emu.clearRequests();
    const un = await svcInProcess(['agents', 'update', a.agent_id, '--unassign-phone'], { emu });
    expect(un.exitCode).toBe(0);
    const patch = emu.requests().find((r) => r.method === 'PATCH')!;
    expect(JSON.parse(patch.body!)).toEqual({ agent: {}, field_mask: { paths: [] }, phone_number_id: '' });
    expect(await phoneAgent(pn.phone_number_id)).toBeNull();

    // reassign to bravo
    expect(
      (await svcInProcess(['agents', 'update', b.agent_id, '--phone-number', pn.phone_number_id], { emu })).exitCode,
    ).toBe(0);
    expect(await phoneAgent(pn.phone_number_id)).toBe(b.agent_id);

    // release: gone for good
    const rel = await svcInProcess(['phone', 'release', pn.phone_number_id, '--yes'], { emu });
    expect(rel.exitCode).toBe(0);
    expect(rel.stderr).toContain(`released phone number ${pn.phone_number_id}`);
    const gone = await svcInProcess(['phone', 'get', pn.phone_number_id], { emu });
    expect(gone.exitCode).toBe(5);
    expect(gone.stderr).toContain('HTTP 404');
    const list = await svcInProcess(['phone', 'list', '--json'], { emu });
    expect(list.stdout).not.toContain(pn.phone_number_id);

    // delete both agents
    for (const id of [a.agent_id, b.agent_id]) {
      const del = await svcInProcess(['agents', 'delete', id, '--yes'], { emu });
      expect(del.exitCode).toBe(0);
      const after = await svcInProcess(['agents', 'get', id], { emu });
      expect(after.exitCode).toBe(5);
    }
    const agents = await svcInProcess(['agents', 'list', '--json'], { emu });
    expect(agents.stdout).toBe('');
  });
});
