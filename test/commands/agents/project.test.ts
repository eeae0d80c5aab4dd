// Issue 31, a project of many agents: `agents init` makes the folder, `agents push` of the folder (or of -f files)
// creates what is missing and records the ids, `agents pull --all` writes a file per agent of the team, `agents
// status` shows which agents differ — in a pipe, as JSON, and on a real terminal.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcOnTerminal } from '../../helpers/terminal.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const writes = () => emu.requests().filter((r) => r.method !== 'GET');
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const put = (path: string, value: unknown) => writeFileSync(path, JSON.stringify(value, null, 2));

/** A new project with two agents written by hand. */
async function project(): Promise<string> {
  const dir = join(tempDir(), 'bots');
  const r = await svcInProcess(['agents', 'init', dir, '--env', 'staging'], { emu });
  expect(r.exitCode, r.stderr).toBe(0);
  put(join(dir, 'agents', 'support.json'), {
    name: 'support',
    instructions: 'Help callers.',
    voice: { voice_id: 'ara' },
  });
  put(join(dir, 'agents', 'sales.json'), { name: 'sales', instructions: 'Sell.' });
  return dir;
}

describe('svc agents init', () => {
  it('makes the folder: svc-agents.json naming the environments, and agents/', async () => {
    const dir = join(tempDir(), 'new', 'bots');
    const r = await svcInProcess(['agents', 'init', dir, '--env', 'staging', '--env', 'prod'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(join(dir, 'svc-agents.json'));
    expect(json(join(dir, 'svc-agents.json'))).toEqual({ environments: ['default', 'staging', 'prod'], agents: {} });
    expect(statSync(join(dir, 'agents')).isDirectory()).toBe(true);
    expect(emu.requests()).toHaveLength(0);
  });

  it('leaves an existing project untouched (exit 2); a bad environment name is exit 2', async () => {
    const dir = await project();
    const before = readFileSync(join(dir, 'svc-agents.json'), 'utf8');
    const again = await svcInProcess(['agents', 'init', dir], { emu });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('already exists');
    expect(readFileSync(join(dir, 'svc-agents.json'), 'utf8')).toBe(before);
    const bad = await svcInProcess(['agents', 'init', join(tempDir(), 'x'), '--env', 'stag ing'], { emu });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--env: "stag ing" is not allowed: letters, digits, - and _');
  });
});

describe('svc agents push (a folder, -f files)', () => {
  it('creates every agent of the folder, records the ids; pushed again it sends nothing', async () => {
    const dir = await project();
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', dir], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(writes().map((q) => `${q.method} ${q.path}`)).toEqual(['POST /v1/agents', 'POST /v1/agents']);
    const ids = json(join(dir, 'svc-agents.json')).agents;
    expect(Object.keys(ids).sort()).toEqual(['sales', 'support']);
    expect(ids.support).toEqual({ file: 'agents/support.json', ids: { default: expect.stringMatching(/^agent_/) } });
    // stdout: one tab-separated row per agent in a pipe
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows).toContainEqual([
      'support',
      'default',
      'created',
      'name, instructions, voice',
      ids.support.ids.default,
    ]);
    expect(r.stderr).toContain('+ support [default]: not on the server yet');
    emu.clearRequests();
    const again = await svcInProcess(['agents', 'push', dir, '--json'], { emu });
    expect(again.exitCode).toBe(0);
    expect(writes()).toHaveLength(0);
    const lines = again.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.result)).toEqual(['unchanged', 'unchanged']);
  });

  it('-f pushes only the agents of the files given (several -f)', async () => {
    const dir = await project();
    put(join(dir, 'agents', 'billing.json'), { name: 'billing' });
    emu.clearRequests();
    const r = await svcInProcess(
      ['agents', 'push', '-f', join(dir, 'agents', 'sales.json'), '-f', join(dir, 'agents', 'billing.json')],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(writes().map((q) => JSON.parse(q.body!).name)).toEqual(['sales', 'billing']);
    const agents = json(join(dir, 'svc-agents.json')).agents;
    expect(agents.support?.ids?.default).toBeUndefined();
    expect(agents.billing.ids.default).toMatch(/^agent_/);
  });

  it('an edit sends one PATCH with exactly the edited field; the project is found from inside its folder', async () => {
    const dir = await project();
    expect((await svcInProcess(['agents', 'push', dir], { emu })).exitCode).toBe(0);
    const support = json(join(dir, 'agents', 'support.json'));
    put(join(dir, 'agents', 'support.json'), { ...support, instructions: 'Help callers kindly.' });
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push'], { emu, cwd: join(dir, 'agents') });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(writes().map((q) => JSON.parse(q.body!))).toEqual([
      { agent: { instructions: 'Help callers kindly.' }, field_mask: { paths: ['instructions'] } },
    ]);
    expect(r.stderr).toContain('~ instructions: "Help callers." → "Help callers kindly."');
  });

  it('on a terminal push and pull --all print tables with a header (in a pipe: rows only, as above)', async () => {
    const dir = await project();
    const push = await svcInProcess(['agents', 'push', dir], { emu, tty: true, columns: 120 });
    expect(push.exitCode, push.stderr).toBe(0);
    const lines = push.stdout.split('\n');
    expect(lines[0]).toMatch(/^AGENT +ENV +RESULT +CHANGED +ID$/);
    expect(lines[1]).toMatch(/^sales +default +created +name, instructions +agent_\w+$/);
    expect(lines[1]!.indexOf('created')).toBe(lines[0]!.indexOf('RESULT'));
    const pull = await svcInProcess(['agents', 'pull', '--all', '--project', dir], { emu, tty: true, columns: 160 });
    expect(pull.exitCode, pull.stderr).toBe(0);
    expect(pull.stdout.split('\n')[0]).toMatch(/^AGENT +ENV +RESULT +FILE +ID$/);
    expect(pull.stdout).toMatch(/^support +default +written +agents\/support\.json +agent_/m);
  });

  it('bad files are exit 2 before anything is sent: a limit, invalid JSON, no name; no project is exit 2', async () => {
    const dir = await project();
    put(join(dir, 'agents', 'sales.json'), { name: 'sales', voice: { vad_threshold: 2 } });
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', dir], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('agents/sales.json: voice.vad_threshold: 2 is not allowed: a number from 0 to 1');
    writeFileSync(join(dir, 'agents', 'sales.json'), '{"name": ');
    const bad = await svcInProcess(['agents', 'push', dir], { emu });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('agents/sales.json is not valid JSON');
    put(join(dir, 'agents', 'sales.json'), { instructions: 'no name' });
    const noName = await svcInProcess(['agents', 'push', dir], { emu });
    expect(noName.exitCode).toBe(2);
    expect(noName.stderr).toContain('name is required to create agent sales');
    const none = await svcInProcess(['agents', 'push'], { emu, cwd: tempDir() });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('no svc-agents.json in');
    expect(emu.requests()).toHaveLength(0);
  });
});

describe('svc agents pull --all', () => {
  it('writes a file per agent of the team, adds them to the project; pulled again nothing is rewritten', async () => {
    const other = await project();
    expect((await svcInProcess(['agents', 'push', other], { emu })).exitCode).toBe(0);
    const listed = await svcInProcess(['agents', 'list', '--all', '--json'], { emu });
    const team = listed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .map((a) => [a.agent_id, a.name] as [string, string]);
    const dir = join(tempDir(), 'mirror');
    expect((await svcInProcess(['agents', 'init', dir], { emu })).exitCode).toBe(0);
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'pull', '--all', '--project', dir, '--json'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(writes()).toHaveLength(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(team.length);
    expect(rows.every((x) => x.result === 'added')).toBe(true);
    const agents = json(join(dir, 'svc-agents.json')).agents as Record<
      string,
      { file: string; ids: { default: string } }
    >;
    for (const [id, name] of team) {
      const entry = Object.values(agents).find((a) => a.ids.default === id)!;
      const file = json(join(dir, entry.file));
      expect(file.name).toBe(name);
      expect(file).not.toHaveProperty('agent_id');
      expect(file).not.toHaveProperty('updated_at');
      expect(file).toHaveProperty('phone_number', null);
    }
    const support = Object.values(agents).find((a) => json(join(dir, a.file)).name === 'support')!;
    expect(json(join(dir, support.file))).toMatchObject({ instructions: 'Help callers.', voice: { voice_id: 'ara' } });
    // in sync now; a second pull rewrites nothing
    const mtime = statSync(join(dir, support.file)).mtimeMs;
    const again = await svcInProcess(['agents', 'pull', '--all', '--project', dir], { emu });
    expect(again.exitCode).toBe(0);
    expect(
      again.stdout
        .split('\n')
        .filter(Boolean)
        .every((l) => l.split('\t')[2] === 'unchanged'),
    ).toBe(true);
    expect(statSync(join(dir, support.file)).mtimeMs).toBe(mtime);
    const status = await svcInProcess(['agents', 'status', dir, '--json'], { emu });
    expect(
      status.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).state),
    ).toEqual(team.map(() => 'same'));
  });

  it('a server failure while reading is loud and leaves every file as it was, no temp file beside', async () => {
    const dir = await project();
    expect((await svcInProcess(['agents', 'push', dir], { emu })).exitCode).toBe(0);
    const before = readdirSync(join(dir, 'agents')).map((f) => [f, readFileSync(join(dir, 'agents', f), 'utf8')]);
    const projectBefore = readFileSync(join(dir, 'svc-agents.json'), 'utf8');
    emu.faults.add({ kind: 'status', status: 503, path: '^/v1/phone-numbers', times: 10 });
    try {
      const r = await svcInProcess(['agents', 'pull', '--all', '--project', dir, '--max-retries', '0'], { emu });
      expect(r.exitCode).toBe(7);
      expect(r.stderr).toContain('503');
      expect(r.stdout).toBe('');
    } finally {
      emu.faults.clear();
    }
    expect(readdirSync(join(dir, 'agents')).map((f) => [f, readFileSync(join(dir, 'agents', f), 'utf8')])).toEqual(
      before,
    );
    expect(readFileSync(join(dir, 'svc-agents.json'), 'utf8')).toBe(projectBefore);
  });

  it('push stopped by a failure still reports the agents it created, whose ids are recorded', async () => {
    const dir = await project();
    // sales is created first (file order), then the emulator's store fails on support's create (a 500)
    let calls = 0;
    const agents = emu.core.store.collection<Record<string, unknown>>('agents');
    const set = agents.set.bind(agents);
    agents.set = (k, v) => {
      if (++calls > 1) throw new Error('disk on fire');
      return set(k, v);
    };
    try {
      const r = await svcInProcess(['agents', 'push', dir, '--max-retries', '0'], { emu });
      expect(r.exitCode).not.toBe(0);
      const rows = r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t'));
      expect(rows).toHaveLength(1);
      expect(rows[0]!.slice(0, 3)).toEqual(['sales', 'default', 'created']);
      const ids = json(join(dir, 'svc-agents.json')).agents;
      expect(ids.sales.ids.default).toBe(rows[0]![4]);
      expect(ids.support?.ids?.default).toBeUndefined();
    } finally {
      agents.set = set;
    }
  });

  it('a full list (1,000 agents, the most one reply holds) is pulled with a warning that more may exist', async () => {
    const own = await startTestEmulator();
    try {
      const made = await svcInProcess(['agents', 'create', '--name', 'seed', '--json', '--jq', '.agent.agent_id'], {
        emu: own,
      });
      const agents = own.core.store.collection<Record<string, unknown>>('agents');
      const seed = agents.get(made.stdout.trim())!;
      for (let i = 1; i < 1000; i++)
        agents.set(`agent_many${i}`, { ...seed, agent_id: `agent_many${i}`, name: `a${i}` });
      const dir = join(tempDir(), 'many');
      expect((await svcInProcess(['agents', 'init', dir], { emu: own })).exitCode).toBe(0);
      const r = await svcInProcess(['agents', 'pull', '--all', '--project', dir], { emu: own });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout.trim().split('\n')).toHaveLength(1000);
      expect(r.stderr).toContain("warning: the team's agent list stops at 1000 agents; any beyond were not pulled");
    } finally {
      await own.close();
    }
  });

  it('--all with an id or -o, or an id with --env, is exit 2', async () => {
    for (const args of [
      ['agents', 'pull', 'agent_1', '--all'],
      ['agents', 'pull', '--all', '-o', 'x.json'],
      ['agents', 'pull', 'agent_1', '--env', 'staging'],
      ['agents', 'pull'],
    ]) {
      emu.clearRequests();
      const r = await svcInProcess(args, { emu, cwd: tempDir() });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(emu.requests()).toHaveLength(0);
    }
  });
});

describe('svc agents status', () => {
  it('in a pipe: a tab-separated row per agent (in sync, changed with its fields, not pushed); exit 0', async () => {
    const dir = await project();
    expect((await svcInProcess(['agents', 'push', '-f', join(dir, 'agents', 'support.json')], { emu })).exitCode).toBe(
      0,
    );
    const id = json(join(dir, 'svc-agents.json')).agents.support.ids.default;
    let r = await svcInProcess(['agents', 'status', dir], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`sales\tdefault\tnot pushed\tname, instructions\t\nsupport\tdefault\tin sync\t\t${id}\n`);
    const support = json(join(dir, 'agents', 'support.json'));
    put(join(dir, 'agents', 'support.json'), {
      ...support,
      voice: { voice_id: 'rex' },
      tools: [{ type: 'web_search' }],
    });
    r = await svcInProcess(['agents', 'status', dir], { emu });
    expect(r.stdout).toContain(`support\tdefault\tchanged\ttools, voice\t${id}\n`);
    expect(r.stderr).toContain('2 of 2 differ [default]');
    r = await svcInProcess(['agents', 'status', dir, '--json'], { emu });
    expect(JSON.parse(r.stdout.trim().split('\n')[1]!)).toEqual({
      agent: 'support',
      env: 'default',
      files: ['agents/support.json'],
      agent_id: id,
      state: 'changed',
      fields: ['tools', 'voice'],
    });
    // a recorded agent deleted on the server
    expect((await svcInProcess(['agents', 'delete', id, '--yes'], { emu })).exitCode).toBe(0);
    r = await svcInProcess(['agents', 'status', dir], { emu });
    expect(r.stdout).toContain(`support\tdefault\tgone from server\tname, instructions, tools, voice\t${id}\n`);
  });

  it('on a terminal: a table with a header, columns aligned', async () => {
    const dir = await project();
    expect((await svcInProcess(['agents', 'push', dir], { emu })).exitCode).toBe(0);
    mkdirSync(join(dir, 'agents'), { recursive: true });
    const support = json(join(dir, 'agents', 'support.json'));
    put(join(dir, 'agents', 'support.json'), { ...support, name: 'support desk' });
    const r = await svcOnTerminal(['agents', 'status'], { emu, cwd: dir, cols: 100 });
    expect(r.exitCode, r.screen).toBe(0);
    const lines = r.screen.split(/\r?\n/).filter((l) => l.trim() !== '');
    const header = lines.findIndex((l) => /^AGENT +ENV +STATE +FIELDS +ID/.test(l));
    expect(header, r.screen).toBeGreaterThanOrEqual(0);
    expect(lines[header + 1]).toMatch(/^sales +default +in sync +agent_/);
    expect(lines[header + 2]).toMatch(/^support +default +changed +name +agent_/);
    expect(lines[header + 1]!.indexOf('default')).toBe(lines[header]!.indexOf('ENV'));
    expect(existsSync(join(dir, 'svc-agents.json'))).toBe(true);
  });
});
