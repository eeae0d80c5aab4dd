// Agents as code: pull writes a lossless file; push of it unchanged sends nothing; an edit sends a PATCH
// whose mask holds exactly the edited field; --dry-run sends nothing; fields the server changes are reported.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir, writeTemp } from '../../helpers/files.js';

let emu: TestEmulator;
let agentId: string;
const dir = tempDir();
const file = join(dir, 'agent.json');

const writes = () => emu.requests().filter((r) => r.method !== 'GET');

beforeAll(async () => {
  emu = await startTestEmulator();
  const tools = writeTemp(
    'tools.json',
    JSON.stringify([
      {
        type: 'function',
        function: {
          name: 'lookup',
          description: 'find an order',
          parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        },
      },
      { type: 'web_search' },
    ]),
  );
  const r = await svcInProcess(
    [
      'agents',
      'create',
      '--name',
      'support',
      '--instructions',
      'Line one.\nLine two.\nLine three.',
      '--voice',
      'ara',
      '--vad-threshold',
      '0.3',
      '--tool',
      tools,
      '--collection',
      'col_a',
      '--json',
      '--jq',
      '.agent',
    ],
    { emu },
  );
  agentId = JSON.parse(r.stdout).agent_id;
});
afterAll(() => emu.close());

describe('svc agents pull / push', () => {
  it('pull prints the agent as JSON on stdout, every field as the API sent it', async () => {
    const r = await svcInProcess(['agents', 'pull', agentId], { emu });
    expect(r.exitCode).toBe(0);
    const pulled = JSON.parse(r.stdout);
    const got = JSON.parse(
      (await svcInProcess(['agents', 'get', agentId, '--json', '--jq', '.agent'], { emu })).stdout,
    );
    expect(pulled).toEqual(got);
    expect(r.stdout.endsWith('}\n')).toBe(true);
  });

  it('push of the unchanged pulled file sends nothing', async () => {
    const pulled = await svcInProcess(['agents', 'pull', agentId, '-o', file], { emu });
    expect(pulled.exitCode).toBe(0);
    expect(pulled.stdout).toBe('');
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', '-f', file], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('already matches');
    expect(r.stdout.trim()).toBe(agentId);
    expect(writes()).toHaveLength(0);
    expect(emu.requests().map((q) => `${q.method} ${q.path}`)).toEqual([`GET /v1/agents/${agentId}`]);
  });

  it('--dry-run shows the difference on stderr, sends nothing and exits 1 (something differs)', async () => {
    const a = JSON.parse(readFileSync(file, 'utf8'));
    a.instructions = 'Line one.\nLine 2, edited.\nLine three.';
    const edited = join(dir, 'dry.json');
    writeFileSync(edited, JSON.stringify(a, null, 2));
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', '-f', edited, '--dry-run'], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('~ instructions');
    expect(r.stderr).toContain('  - Line two.');
    expect(r.stderr).toContain('  + Line 2, edited.');
    expect(r.stderr).toContain('dry run: nothing was sent');
    expect(writes()).toHaveLength(0);
  });

  it('--dry-run on 2,100-line instructions with one line changed prints a small diff, not a rewrite', async () => {
    const long = Array.from({ length: 2100 }, (_, i) => `Rule ${i + 1}: be helpful about topic ${i % 37}.`);
    const base = JSON.parse(readFileSync(file, 'utf8'));
    const big = join(dir, 'big.json');
    writeFileSync(big, JSON.stringify({ ...base, instructions: long.join('\n') }, null, 2));
    expect((await svcInProcess(['agents', 'push', '-f', big], { emu })).exitCode).toBe(0);
    const edited = [...long];
    edited[1049] = 'Rule 1050: changed.';
    writeFileSync(big, JSON.stringify({ ...base, instructions: edited.join('\n') }, null, 2));
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', '-f', big, '--dry-run'], { emu });
    expect(r.exitCode).toBe(1);
    const lines = r.stderr.split('\n');
    expect(lines.filter((l) => l.startsWith('  - '))).toEqual([`  - ${long[1049]}`]);
    expect(lines.filter((l) => l.startsWith('  + '))).toEqual(['  + Rule 1050: changed.']);
    expect(r.stderr).toContain('@@ line 1048 @@');
    expect(lines.length).toBeLessThan(20);
    expect(writes()).toHaveLength(0);
    // back to the pulled agent for the tests that follow
    expect((await svcInProcess(['agents', 'push', '-f', file], { emu })).exitCode).toBe(0);
  });

  it('editing one field sends a PATCH whose mask holds only that field', async () => {
    const a = JSON.parse(readFileSync(file, 'utf8'));
    a.voice.vad_threshold = 0.6;
    writeFileSync(file, JSON.stringify(a, null, 2));
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', '-f', file], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('~ voice');
    expect(r.stderr).toContain('-   "vad_threshold": 0.3');
    expect(r.stderr).toContain('+   "vad_threshold": 0.6');
    const w = writes();
    expect(w.map((q) => q.method)).toEqual(['PATCH']);
    expect(JSON.parse(w[0]!.body!)).toEqual({
      agent: { voice: { voice_id: 'ara', vad_threshold: 0.6 } },
      field_mask: { paths: ['voice'] },
    });
    expect(r.stderr).not.toContain('warning');
    // and it is now in sync
    emu.clearRequests();
    expect((await svcInProcess(['agents', 'push', '-f', file], { emu })).stderr).toContain('already matches');
    expect(writes()).toHaveLength(0);
  });

  it('null clears a field (masked and left out of agent)', async () => {
    const a = JSON.parse(readFileSync(file, 'utf8'));
    a.collection_ids = null;
    writeFileSync(file, JSON.stringify(a));
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', '-f', file, '--json', '--jq', '.agent'], { emu });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(writes()[0]!.body!)).toEqual({ agent: {}, field_mask: { paths: ['collection_ids'] } });
    expect(JSON.parse(r.stdout).collection_ids).toEqual([]);
  });

  it('a file without agent_id creates the agent (after reading it back)', async () => {
    const f = writeTemp('new.json', JSON.stringify({ name: 'created by push', voice: { voice_id: 'Leo' } }));
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', '-f', f], { emu });
    expect(r.exitCode).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(/^agent_/);
    expect(r.stderr).toContain('+ new agent');
    expect(r.stderr).toContain(`add "agent_id": "${id}"`);
    expect(writes().map((q) => `${q.method} ${q.path}`)).toEqual(['POST /v1/agents']);
    expect(JSON.parse(writes()[0]!.body!)).toEqual({ name: 'created by push', voice: { voice_id: 'leo' } });
    const got = JSON.parse((await svcInProcess(['agents', 'get', id, '--json', '--jq', '.agent'], { emu })).stdout);
    expect(got.voice).toEqual({ voice_id: 'leo' });
  });

  it('several lone -f files are pushed one after another, an id per line', async () => {
    const a = writeTemp('lone-a.json', JSON.stringify({ name: 'lone a' }));
    const b = writeTemp('lone-b.json', JSON.stringify({ name: 'lone b', instructions: 'Hi.' }));
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', '-f', a, '-f', b], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const ids = r.stdout.trim().split('\n');
    expect(ids).toHaveLength(2);
    expect(writes().map((q) => JSON.parse(q.body!).name)).toEqual(['lone a', 'lone b']);
    const env = await svcInProcess(['agents', 'push', '-f', a, '--env', 'staging'], { emu });
    expect(env.exitCode).toBe(2);
    expect(env.stderr).toContain('is not an agent of a project (svc-agents.json); --env needs one');
  });

  it('reads the agent back and warns about a field the server did not keep as sent', async () => {
    const a = JSON.parse(readFileSync(file, 'utf8'));
    a.name = 'renamed';
    writeFileSync(file, JSON.stringify(a));
    // The in-process emulator's store is made to keep another value than the one written (as a server that
    // normalises a field would); the PATCH reply still echoes what was sent, so only the read-back shows it.
    const agents = emu.core.store.collection<Record<string, unknown>>('agents');
    const set = agents.set.bind(agents);
    agents.set = (k, v) => set(k, v.name === 'renamed' ? { ...v, name: 'RENAMED BY SERVER' } : v);
    try {
      const r = await svcInProcess(['agents', 'push', '-f', file], { emu });
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toContain(
        'warning: the server did not keep name as sent: sent "renamed", now "RENAMED BY SERVER"',
      );
      expect(emu.requests().slice(-1)[0]).toMatchObject({ method: 'GET', path: `/v1/agents/${agentId}` });
    } finally {
      agents.set = set;
    }
  });

  it('an unknown agent_id exits 5 with a hint; invalid JSON and limits are usage errors', async () => {
    const f = writeTemp('gone.json', JSON.stringify({ agent_id: 'agent_gone', name: 'x' }));
    const r = await svcInProcess(['agents', 'push', '-f', f], { emu });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('remove "agent_id" from the file');
    emu.clearRequests();
    const bad = await svcInProcess(['agents', 'push', '-f', writeTemp('bad.json', '{"name": ')], { emu });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('is not valid JSON');
    const limit = await svcInProcess(
      [
        'agents',
        'push',
        '-f',
        writeTemp(
          'lim.json',
          JSON.stringify({ agent_id: agentId, collection_ids: Array.from({ length: 11 }, (_, i) => `c${i}`) }),
        ),
      ],
      { emu },
    );
    expect(limit.exitCode).toBe(2);
    expect(limit.stderr).toContain('collection_ids: 11 collections is not allowed: at most 10 collections per agent');
    const noFile = await svcInProcess(['agents', 'push'], { emu });
    expect(noFile.exitCode).toBe(2);
    expect(emu.requests()).toHaveLength(0);
  });
});
