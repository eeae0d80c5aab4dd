// The emulator's state rules for agents, phone numbers, calls and client secrets, spoken to over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from 'svc-emulator/testing';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

async function api(
  method: string,
  path: string,
  body?: unknown,
  key = emu.key,
): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

async function newAgent(name: string, extra: Record<string, unknown> = {}) {
  const r = await api('POST', '/v1/agents', { name, ...extra });
  expect(r.status).toBe(200);
  return r.body.agent as Record<string, any>;
}

async function newNumber(name = 'line') {
  const r = await api('POST', '/v1/phone-numbers', { area_code: '415', name });
  expect(r.status).toBe(200);
  return r.body.phone_number as Record<string, any>;
}

describe('agents', () => {
  it('envelopes: create and get {agent}, list {agents}', async () => {
    const a = await newAgent('env', { voice: { voice_id: 'Eve' } });
    expect(a).toMatchObject({
      name: 'env',
      instructions: null,
      tools: null,
      voice: { voice_id: 'eve' },
      collection_ids: [],
    });
    expect((await api('GET', `/v1/agents/${a.agent_id}`)).body).toEqual({ agent: a });
    const list = await api('GET', '/v1/agents');
    expect(list.body.agents.map((x: any) => x.agent_id)).toContain(a.agent_id);
  });

  it('field mask: only masked fields are written; masked and absent clears; unknown path is 400', async () => {
    const a = await newAgent('mask', {
      instructions: 'keep me',
      tools: [{ type: 'web_search' }],
      collection_ids: ['c1'],
    });
    const r = await api('PATCH', `/v1/agents/${a.agent_id}`, {
      agent: { name: 'masked', instructions: 'not masked' },
      field_mask: { paths: ['name', 'tools', 'collection_ids'] },
    });
    expect(r.status).toBe(200);
    expect(r.body.agent).toMatchObject({ name: 'masked', instructions: 'keep me', tools: null, collection_ids: [] });
    const bad = await api('PATCH', `/v1/agents/${a.agent_id}`, {
      agent: {},
      field_mask: { paths: ['name', 'phone_number'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      code: 'invalid-argument',
      error:
        'Invalid value for `field_mask.paths[1]`: "phone_number"; must be one of name, instructions, tools, voice, ' +
        'collection_ids',
    });
    expect((await api('GET', `/v1/agents/${a.agent_id}`)).body.agent.name).toBe('masked');
    const missing = await api('PATCH', `/v1/agents/${a.agent_id}`, { agent: {} });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('missing field `field_mask`');
  });

  it('limits are 400 on the server too', async () => {
    const cases: Record<string, unknown>[] = [
      { name: 'n'.repeat(256) },
      { name: 'a', instructions: 'i'.repeat(256_001) },
      { name: 'a', tools: Array.from({ length: 201 }, () => ({ type: 'web_search' })) },
      { name: 'a', tools: [{ type: 'code_interpreter' }] },
      { name: 'a', collection_ids: Array.from({ length: 11 }, (_, i) => `c${i}`) },
      { name: 'a', voice: { voice_id: 'bob' } },
      { name: 'a', voice: { vad_threshold: 1.01 } },
      { name: 'a', voice: { vad_silence_duration_ms: 10_001 } },
      { name: 'a', voice: { vad_silence_duration_ms: 1.5 } },
    ];
    for (const c of cases) {
      const r = await api('POST', '/v1/agents', c);
      expect(r.status, JSON.stringify(c).slice(0, 80)).toBe(400);
      expect(r.body.code).toBe('invalid-argument');
    }
    expect((await api('GET', '/v1/agents?limit=1001')).status).toBe(400);
    expect((await api('GET', '/v1/agents?limit=0')).status).toBe(400);
  });

  it('assignment is atomic, 409 names the holding agent, "" unassigns, a new number replaces the old', async () => {
    const pn = await newNumber();
    const pn2 = await newNumber('second');
    const a = await newAgent('holder');
    const b = await newAgent('wanter');
    expect(
      (
        await api('PATCH', `/v1/agents/${a.agent_id}`, {
          agent: {},
          field_mask: { paths: [] },
          phone_number_id: pn.phone_number_id,
        })
      ).status,
    ).toBe(200);
    expect((await api('GET', `/v1/phone-numbers/${pn.phone_number_id}`)).body.phone_number.agent_id).toBe(a.agent_id);

    const conflict = await api('PATCH', `/v1/agents/${b.agent_id}`, {
      agent: { name: 'changed' },
      field_mask: { paths: ['name'] },
      phone_number_id: pn.phone_number_id,
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('conflict');
    expect(conflict.body.error).toContain(`already assigned to agent ${a.agent_id} ("holder")`);
    expect((await api('GET', `/v1/agents/${b.agent_id}`)).body.agent.name).toBe('wanter');

    // assigning another number to the holder frees the first
    expect(
      (
        await api('PATCH', `/v1/agents/${a.agent_id}`, {
          agent: {},
          field_mask: { paths: [] },
          phone_number_id: pn2.phone_number_id,
        })
      ).status,
    ).toBe(200);
    expect((await api('GET', `/v1/phone-numbers/${pn.phone_number_id}`)).body.phone_number.agent_id).toBeNull();
    expect((await api('GET', `/v1/phone-numbers/${pn2.phone_number_id}`)).body.phone_number.agent_id).toBe(a.agent_id);

    expect(
      (await api('PATCH', `/v1/agents/${a.agent_id}`, { agent: {}, field_mask: { paths: [] }, phone_number_id: '' }))
        .status,
    ).toBe(200);
    expect((await api('GET', `/v1/phone-numbers/${pn2.phone_number_id}`)).body.phone_number.agent_id).toBeNull();

    const unknown = await api('PATCH', `/v1/agents/${a.agent_id}`, {
      agent: {},
      field_mask: { paths: [] },
      phone_number_id: 'pn_missing',
    });
    expect(unknown.status).toBe(404);
  });

  it('deletes are 204 and permanent; a deleted agent frees its number', async () => {
    const pn = await newNumber();
    const a = await newAgent('doomed');
    await api('PATCH', `/v1/agents/${a.agent_id}`, {
      agent: {},
      field_mask: { paths: [] },
      phone_number_id: pn.phone_number_id,
    });
    const del = await api('DELETE', `/v1/agents/${a.agent_id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await api('GET', `/v1/agents/${a.agent_id}`)).status).toBe(404);
    expect((await api('DELETE', `/v1/agents/${a.agent_id}`)).status).toBe(404);
    expect((await api('GET', `/v1/phone-numbers/${pn.phone_number_id}`)).body.phone_number.agent_id).toBeNull();
    expect((await api('DELETE', `/v1/phone-numbers/${pn.phone_number_id}`)).status).toBe(204);
    expect((await api('GET', `/v1/phone-numbers/${pn.phone_number_id}`)).status).toBe(404);
  });

  it('403 for a key without agent access; another team sees nothing (404)', async () => {
    const noAgents = emu.addKey({ acls: ['api-key:endpoint:phone-numbers', 'api-key:endpoint:agents-x'] });
    const r = await api('GET', '/v1/phone-numbers', undefined, noAgents.key);
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('The API key does not have agent access');
    expect((await api('GET', '/v1/agents', undefined, noAgents.key)).status).toBe(403);
    const a = await newAgent('private');
    const other = emu.addKey({ team_id: 'team_other' });
    expect((await api('GET', `/v1/agents/${a.agent_id}`, undefined, other.key)).status).toBe(404);
    expect((await api('GET', '/v1/agents', undefined, other.key)).body).toEqual({ agents: [] });
  });
});

describe('phone numbers', () => {
  it('v1: envelopes, area code and text limits, field mask paths', async () => {
    expect((await api('POST', '/v1/phone-numbers', { area_code: '41', name: 'x' })).status).toBe(400);
    expect((await api('POST', '/v1/phone-numbers', { area_code: '415', name: 'n'.repeat(256) })).status).toBe(400);
    expect(
      (await api('POST', '/v1/phone-numbers', { area_code: '415', name: 'x', description: 'd'.repeat(1001) })).status,
    ).toBe(400);
    const pn = await newNumber('v1');
    const list = await api('GET', '/v1/phone-numbers');
    expect(Object.keys(list.body)).toEqual(['phone_numbers']);
    const patched = await api('PATCH', `/v1/phone-numbers/${pn.phone_number_id}`, {
      name: 'renamed',
      description: 'ignored',
      field_mask: { paths: ['name'] },
    });
    expect(patched.body.phone_number).toMatchObject({ name: 'renamed', description: null });
    expect(
      (await api('PATCH', `/v1/phone-numbers/${pn.phone_number_id}`, { field_mask: { paths: ['area_code'] } })).status,
    ).toBe(400);
  });

  it('v2: default page 20, clamp at 100, pagination_token only when another page exists, agent filter', async () => {
    const a = await newAgent('v2 target');
    for (let i = 0; i < 25; i++) {
      const r = await api('POST', '/v2/phone-numbers', {
        origin: 'svc_provisioned',
        name: `p${i}`,
        ...(i % 5 === 0 ? { agent_id: a.agent_id } : {}),
      });
      expect(r.status).toBe(200);
    }
    const first = await api('GET', '/v2/phone-numbers');
    expect(first.body.phone_numbers).toHaveLength(20);
    expect(first.body.pagination_token).toBe(first.body.phone_numbers[19].phone_number_id);
    const second = await api('GET', `/v2/phone-numbers?pagination_token=${first.body.pagination_token}`);
    expect(second.body.phone_numbers.map((p: any) => p.name)).toEqual(['p20', 'p21', 'p22', 'p23', 'p24']);
    expect('pagination_token' in second.body).toBe(false);
    const clamped = await api('GET', '/v2/phone-numbers?limit=500');
    expect(clamped.status).toBe(200);
    expect(clamped.body.phone_numbers).toHaveLength(25);
    const mine = await api('GET', `/v2/phone-numbers?agent_id=${a.agent_id}`);
    expect(mine.body.phone_numbers.map((p: any) => p.name)).toEqual(['p0', 'p5', 'p10', 'p15', 'p20']);
    expect((await api('GET', '/v2/phone-numbers?pagination_token=pn_nope')).status).toBe(400);
  });

  it('v2: origin rules, duplicate 409, delete 204', async () => {
    expect((await api('POST', '/v2/phone-numbers', { origin: 'other', name: 'x' })).status).toBe(400);
    expect((await api('POST', '/v2/phone-numbers', { origin: 'byo_trunk', name: 'x' })).status).toBe(400);
    expect(
      (await api('POST', '/v2/phone-numbers', { origin: 'svc_provisioned', name: 'x', phone_number: '+14155550100' }))
        .status,
    ).toBe(400);
    expect(
      (
        await api('POST', '/v2/phone-numbers', {
          origin: 'byo_trunk',
          name: 'x',
          phone_number: '+14155550177',
          sip_auth: { allowed_addresses: ['nope'] },
        })
      ).status,
    ).toBe(400);
    const ok = await api('POST', '/v2/phone-numbers', {
      origin: 'byo_trunk',
      name: 'x',
      phone_number: '+14155550177',
      webhook: { name: 'w', url: 'http://127.0.0.1:9/x' },
    });
    expect(ok.body.webhook).toMatchObject({
      name: 'w',
      url: 'http://127.0.0.1:9/x',
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(
      (await api('POST', '/v2/phone-numbers', { origin: 'byo_trunk', name: 'x', phone_number: '+14155550177' })).status,
    ).toBe(409);
    const id = ok.body.phone_number.phone_number_id;
    expect((await api('DELETE', `/v2/phone-numbers/${id}`)).status).toBe(204);
    expect((await api('DELETE', `/v2/phone-numbers/${id}`)).status).toBe(404);
  });
});

describe('calls and client secrets', () => {
  it('calls exist while active: refer/hangup end them, then 404; target_uri is checked', async () => {
    const started = (await (
      await fetch(`${emu.url}/_emulator/calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as {
      call: { call_id: string };
    };
    const id = started.call.call_id;
    const stored = emu.core.store.collection<Record<string, unknown>>('calls').get(id)!;
    expect(stored).toMatchObject({
      call_id: id,
      status: 'active',
      from: expect.stringMatching(/^\+/),
      to: expect.stringMatching(/^\+/),
    });
    expect(typeof stored.created_at).toBe('number');
    expect((await api('POST', `/v1/realtime/calls/${id}/refer`, { target_uri: 'mailto:x@y' })).status).toBe(400);
    expect((await api('POST', `/v1/realtime/calls/${id}/hangup`)).body).toEqual({});
    expect(emu.core.store.collection<Record<string, unknown>>('calls').get(id)!.status).toBe('ended');
    expect((await api('POST', `/v1/realtime/calls/${id}/hangup`)).status).toBe(404);
    expect((await api('POST', '/v1/realtime/calls/rtc_nope/refer', { target_uri: 'tel:+14155550100' })).status).toBe(
      404,
    );
  });

  it('client secrets: default 600 s, 1..3600, prefixed svc-cs-, stored with the key', async () => {
    const now = Math.floor(Date.now() / 1000);
    const r = await api('POST', '/v1/realtime/client_secrets', {});
    expect(r.body.value).toMatch(/^svc-cs-/);
    expect(r.body.expires_at - now).toBeGreaterThanOrEqual(599);
    expect(emu.core.store.collection<{ key: string }>('client_secrets').get(r.body.value)!.key).toBe(emu.key);
    expect((await api('POST', '/v1/realtime/client_secrets', { expires_after: { seconds: 0 } })).status).toBe(400);
    expect((await api('POST', '/v1/realtime/client_secrets', { expires_after: { seconds: 3601 } })).status).toBe(400);
    expect((await api('POST', '/v1/realtime/client_secrets', { expires_after: { seconds: 3600 } })).status).toBe(200);
  });
});
