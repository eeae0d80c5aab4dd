// Issue 31, environments: `--env staging` pushes each agent file merged with its overlay (NAME.staging.json changing
// instructions, voice, tools, phone number) to an agent of its own; phone numbers are found and their holders read
// through the phone numbers API and assigned with the agent's PATCH; `${env:NAME}` references are resolved from the
// environment when sending and never written into a file, nor printed (the secret is registered: any CLI output
// holding it fails the test).
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { itWithEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { registerSecret } from '../../helpers/secrets.js';

const SECRET = 'crm-token-5f3a9c1e77';
registerSecret(SECRET);
const MCP = { type: 'mcp', server_url: 'https://crm.example/mcp', authorization: 'Bearer ${env:CRM_TOKEN}' };

const it = itWithEmulator();

interface Numbers {
  a: { id: string; e164: string };
  b: { id: string; e164: string };
}

async function buyNumbers(emu: TestEmulator): Promise<Numbers> {
  const buy = async (area: string) => {
    const r = await svcInProcess(['phone', 'buy', '--area-code', area, '--name', area, '--yes', '--json'], { emu });
    const n = JSON.parse(r.stdout).phone_number;
    return { id: n.phone_number_id as string, e164: n.phone_number as string };
  };
  return { a: await buy('415'), b: await buy('212') };
}

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const put = (path: string, value: unknown) => writeFileSync(path, JSON.stringify(value, null, 2));
const writes = (emu: TestEmulator) => emu.requests().filter((r) => r.method !== 'GET');
const stored = (emu: TestEmulator, id: string) => emu.core.store.collection<Record<string, any>>('agents').get(id)!;
const holder = (emu: TestEmulator, pn: string) =>
  emu.core.store.collection<Record<string, any>>('phone_numbers').get(pn)!.agent_id;
const withToken = { CRM_TOKEN: SECRET };

/** A project whose support agent has a staging overlay changing instructions, voice, tools and phone number. */
async function project(emu: TestEmulator): Promise<{ dir: string; numberA: Numbers['a']; numberB: Numbers['b'] }> {
  const { a: numberA, b: numberB } = await buyNumbers(emu);
  const dir = join(tempDir(), 'bots');
  expect((await svcInProcess(['agents', 'init', dir, '--env', 'staging'], { emu })).exitCode).toBe(0);
  put(join(dir, 'agents', 'support.json'), {
    name: 'support',
    instructions: 'Help callers. CRM key: ${env:CRM_TOKEN}',
    voice: { voice_id: 'ara', vad_threshold: 0.4 },
    tools: [MCP],
    phone_number: numberA.id,
  });
  put(join(dir, 'agents', 'support.staging.json'), {
    name: 'support (staging)',
    instructions: 'Staging: help testers. CRM key: ${env:CRM_TOKEN}',
    voice: { voice_id: 'rex' },
    tools: [MCP, { type: 'web_search' }],
    phone_number: numberB.e164,
  });
  return { dir, numberA, numberB };
}

/** Every file of the project, as text. */
const projectText = (dir: string) =>
  [join(dir, 'svc-agents.json'), ...readdirSync(join(dir, 'agents')).map((f) => join(dir, 'agents', f))]
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');

describe('svc agents push --env', () => {
  it('pushes base + overlay to an agent of its own per environment, each with its phone number', async ({ emu }) => {
    const { dir, numberA, numberB } = await project(emu);
    const base = await svcInProcess(['agents', 'push', dir], { emu, env: withToken });
    expect(base.exitCode, base.stderr).toBe(0);
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', dir, '--env', 'staging'], { emu, env: withToken });
    expect(r.exitCode, r.stderr).toBe(0);
    const ids = json(join(dir, 'svc-agents.json')).agents.support.ids;
    expect(ids.staging).toMatch(/^agent_/);
    expect(ids.staging).not.toBe(ids.default);
    // the numbers were looked up through the phone numbers API, the assignment went with the agent's PATCH
    expect(emu.requests().map((q) => `${q.method} ${q.path.split('?')[0]}`)).toContain('GET /v1/phone-numbers');
    expect(writes(emu).map((q) => `${q.method} ${q.path}`)).toEqual([
      'POST /v1/agents',
      `PATCH /v1/agents/${ids.staging}`,
    ]);
    expect(JSON.parse(writes(emu)[1]!.body!)).toEqual({
      agent: {},
      field_mask: { paths: [] },
      phone_number_id: numberB.id,
    });
    const staging = stored(emu, ids.staging);
    expect(staging.name).toBe('support (staging)');
    expect(staging.instructions).toBe(`Staging: help testers. CRM key: ${SECRET}`);
    // the overlay's voice merged into the base's
    expect(staging.voice).toEqual({ voice_id: 'rex', vad_threshold: 0.4 });
    expect(staging.tools).toEqual([{ ...MCP, authorization: `Bearer ${SECRET}` }, { type: 'web_search' }]);
    expect(holder(emu, numberB.id)).toBe(ids.staging);
    expect(holder(emu, numberA.id)).toBe(ids.default);
    expect(stored(emu, ids.default).voice).toEqual({ voice_id: 'ara', vad_threshold: 0.4 });
    // nothing differs now in either environment
    for (const env of ['default', 'staging']) {
      const d = await svcInProcess(['agents', 'diff', dir, '--env', env], { emu, env: withToken });
      expect(d.exitCode, d.stdout + d.stderr).toBe(0);
    }
    expect(projectText(dir)).not.toContain(SECRET);
  });

  it('a phone number set to null in the overlay is unassigned; one held elsewhere is a 409 naming the holder', async ({
    emu,
  }) => {
    const { dir, numberB } = await project(emu);
    expect((await svcInProcess(['agents', 'push', dir, '--env', 'staging'], { emu, env: withToken })).exitCode).toBe(0);
    const ids = json(join(dir, 'svc-agents.json')).agents.support.ids;
    const overlay = json(join(dir, 'agents', 'support.staging.json'));
    put(join(dir, 'agents', 'support.staging.json'), { ...overlay, phone_number: null });
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', dir, '--env', 'staging'], { emu, env: withToken });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(writes(emu)[0]!.body!).phone_number_id).toBe('');
    expect(holder(emu, numberB.id)).toBeNull();
    // number A is held by the default agent of the first project; this project's staging agent asks for it
    const other = await svcInProcess(['agents', 'create', '--name', 'holder', '--json', '--jq', '.agent.agent_id'], {
      emu,
    });
    const holderId = other.stdout.trim();
    expect((await svcInProcess(['agents', 'update', holderId, '--phone-number', numberB.id], { emu })).exitCode).toBe(
      0,
    );
    put(join(dir, 'agents', 'support.staging.json'), { ...overlay, phone_number: numberB.id });
    const d = await svcInProcess(['agents', 'diff', dir, '--env', 'staging'], { emu, env: withToken });
    expect(d.exitCode).toBe(1);
    expect(d.stdout).toContain(`~ phone_number: (none) → "${numberB.id}" (now held by agent ${holderId})`);
    const p = await svcInProcess(['agents', 'push', dir, '--env', 'staging'], { emu, env: withToken });
    expect(p.exitCode).toBe(1);
    expect(p.stderr).toContain(`phone number ${numberB.id} is held by agent ${holderId}, so it was not assigned`);
    expect(holder(emu, numberB.id)).toBe(holderId);
    expect(stored(emu, ids.staging).name).toBe('support (staging)');
  });

  it('a number moved between two agents of one push: the agent giving it up is written first', async ({ emu }) => {
    const { a: numberA, b: numberB } = await buyNumbers(emu);
    const dir = join(tempDir(), 'bots');
    expect((await svcInProcess(['agents', 'init', dir], { emu })).exitCode).toBe(0);
    put(join(dir, 'agents', 'a-receiver.json'), { name: 'receiver', phone_number: null });
    put(join(dir, 'agents', 'b-giver.json'), { name: 'giver', phone_number: numberA.id });
    expect((await svcInProcess(['agents', 'push', dir], { emu })).exitCode).toBe(0);
    const ids = json(join(dir, 'svc-agents.json')).agents;
    put(join(dir, 'agents', 'a-receiver.json'), { name: 'receiver', phone_number: numberA.e164 });
    put(join(dir, 'agents', 'b-giver.json'), { name: 'giver', phone_number: numberB.e164 });
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', dir], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(writes(emu).map((q) => [q.path, JSON.parse(q.body!).phone_number_id])).toEqual([
      [`/v1/agents/${ids['b-giver'].ids.default}`, numberB.id],
      [`/v1/agents/${ids['a-receiver'].ids.default}`, numberA.id],
    ]);
    expect(holder(emu, numberA.id)).toBe(ids['a-receiver'].ids.default);
    expect(holder(emu, numberB.id)).toBe(ids['b-giver'].ids.default);
  });

  it('-f of an overlay file pushes that environment; another --env with it is exit 2', async ({ emu }) => {
    const { dir } = await project(emu);
    const overlay = join(dir, 'agents', 'support.staging.json');
    emu.clearRequests();
    const clash = await svcInProcess(['agents', 'push', '-f', overlay, '--env', 'default'], { emu, env: withToken });
    expect(clash.exitCode).toBe(2);
    expect(clash.stderr).toContain('the overlay of environment staging, while --env names default');
    expect(emu.requests()).toHaveLength(0);
    const r = await svcInProcess(['agents', 'push', '-f', overlay], { emu, env: withToken });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^support\tstaging\tcreated\t/);
    expect(Object.keys(json(join(dir, 'svc-agents.json')).agents.support.ids)).toEqual(['staging']);
    const d = await svcInProcess(['agents', 'diff', '-f', overlay], { emu, env: withToken });
    expect(d.exitCode, d.stdout).toBe(0);
  });

  it('an unknown environment, an unknown number: exit 2 before anything is sent', async ({ emu }) => {
    const { dir } = await project(emu);
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', dir, '--env', 'prod'], { emu, env: withToken });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--env: "prod" is not allowed: one of default, staging');
    const overlay = json(join(dir, 'agents', 'support.staging.json'));
    put(join(dir, 'agents', 'support.staging.json'), { ...overlay, phone_number: '+19995550100' });
    const n = await svcInProcess(['agents', 'push', dir, '--env', 'staging'], { emu, env: withToken });
    expect(n.exitCode).toBe(2);
    expect(n.stderr).toContain(
      'agents/support.json + agents/support.staging.json: phone_number: +19995550100 is not allowed: no phone number',
    );
    expect(writes(emu)).toHaveLength(0);
  });
});

describe('secrets: ${env:NAME}', () => {
  it('a variable not set, or one of svc own secrets, is exit 2 naming the file and field; nothing is sent', async ({
    emu,
  }) => {
    const { dir } = await project(emu);
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', dir], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      'agents/support.json: instructions: ${env:CRM_TOKEN} is not set in the environment (export CRM_TOKEN=… first)',
    );
    put(join(dir, 'agents', 'support.json'), { name: 'support', instructions: 'key ${env:SVC_API_KEY}' });
    const own = await svcInProcess(['agents', 'diff', dir], { emu });
    expect(own.exitCode).toBe(2);
    expect(own.stderr).toContain("${env:SVC_API_KEY} is not allowed: svc's own secrets are not sent in an agent");
    expect(emu.requests()).toHaveLength(0);
  });

  it('diff, status and push --dry-run --json show the reference, never the value', async ({ emu }) => {
    const { dir } = await project(emu);
    expect((await svcInProcess(['agents', 'push', dir], { emu, env: withToken })).exitCode).toBe(0);
    const base = json(join(dir, 'agents', 'support.json'));
    put(join(dir, 'agents', 'support.json'), { ...base, instructions: 'Help callers well. CRM key: ${env:CRM_TOKEN}' });
    const d = await svcInProcess(['agents', 'diff', dir], { emu, env: withToken });
    expect(d.exitCode).toBe(1);
    expect(d.stdout).toContain(
      '~ instructions: "Help callers. CRM key: ${env:CRM_TOKEN}" → "Help callers well. CRM key: ${env:CRM_TOKEN}"',
    );
    const dry = await svcInProcess(['agents', 'push', dir, '--dry-run', '--json'], { emu, env: withToken });
    expect(dry.exitCode).toBe(1);
    expect(JSON.parse(dry.stdout).changes).toEqual([
      {
        field: 'instructions',
        server: 'Help callers. CRM key: ${env:CRM_TOKEN}',
        local: 'Help callers well. CRM key: ${env:CRM_TOKEN}',
      },
    ]);
    // (every run above was scanned: none printed the secret)
    expect((await svcInProcess(['agents', 'status', dir], { emu, env: withToken })).stdout).toContain('changed');
  });

  it('--verbose traces the bodies with the value hidden (push and pull)', async ({ emu }) => {
    const { dir } = await project(emu);
    const push = await svcInProcess(['agents', 'push', dir, '-v'], { emu, env: withToken });
    expect(push.exitCode, push.stderr).toBe(0);
    expect(push.stderr).toContain('"instructions":"Help callers. CRM key: [REDACTED]"');
    const pull = await svcInProcess(['agents', 'pull', '--all', '--project', dir, '-v'], { emu, env: withToken });
    expect(pull.exitCode, pull.stderr).toBe(0);
    expect(pull.stderr).toContain('CRM key: [REDACTED]');
    // (both runs were scanned for the secret itself)
  });

  it('pull --all keeps references, even into files made anew, and never writes the value', async ({ emu }) => {
    const { dir, numberA, numberB } = await project(emu);
    expect((await svcInProcess(['agents', 'push', dir], { emu, env: withToken })).exitCode).toBe(0);
    expect((await svcInProcess(['agents', 'push', dir, '--env', 'staging'], { emu, env: withToken })).exitCode).toBe(0);
    expect(json(join(dir, 'svc-agents.json')).secrets).toEqual(['CRM_TOKEN']);
    // the files are gone: the project's "secrets" still names the variable whose value must not be written
    rmSync(join(dir, 'agents'), { recursive: true });
    const ids = json(join(dir, 'svc-agents.json')).agents.support.ids;
    emu.clearRequests();
    const unset = await svcInProcess(['agents', 'pull', '--all', '--project', dir], { emu });
    expect(unset.exitCode).toBe(2);
    expect(unset.stderr).toContain('CRM_TOKEN: not set in the environment, and named as secrets by the project');
    expect(emu.requests()).toHaveLength(0);
    for (const env of ['default', 'staging']) {
      const r = await svcInProcess(['agents', 'pull', '--all', '--project', dir, '--env', env], {
        emu,
        env: withToken,
      });
      expect(r.exitCode, r.stderr).toBe(0);
    }
    const support = json(join(dir, 'agents', 'support.json'));
    expect(support.instructions).toBe('Help callers. CRM key: ${env:CRM_TOKEN}');
    expect(support.tools).toEqual([MCP]);
    expect(support.phone_number).toBe(numberA.e164);
    expect(json(join(dir, 'agents', 'support.staging.json'))).toEqual({
      name: 'support (staging)',
      instructions: 'Staging: help testers. CRM key: ${env:CRM_TOKEN}',
      tools: [MCP, { type: 'web_search' }],
      voice: { voice_id: 'rex' }, // the base's vad_threshold is not repeated: the overlay merges key by key
      phone_number: numberB.e164,
    });
    expect(projectText(dir)).not.toContain(SECRET);
    // the pulled files are in sync in both environments
    for (const env of ['default', 'staging']) {
      const d = await svcInProcess(['agents', 'diff', dir, '--env', env], { emu, env: withToken });
      expect(d.exitCode, d.stdout).toBe(0);
    }
    // the server now holds another value where the file has a reference: the file keeps its text, with a warning
    const agent = stored(emu, ids.default);
    emu.core.store
      .collection('agents')
      .set(ids.default, { ...agent, instructions: 'Help callers. CRM key: leaked-old' });
    const r = await svcInProcess(['agents', 'pull', '--all', '--project', dir], { emu, env: withToken });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain("support [default]: instructions: the server's text holds no value of the ${env:…}");
    expect(json(join(dir, 'agents', 'support.json')).instructions).toBe('Help callers. CRM key: ${env:CRM_TOKEN}');
    expect(projectText(dir)).not.toContain('leaked-old');
  });
});
