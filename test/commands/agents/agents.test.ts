import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir, writeTemp } from '../../helpers/files.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const fnTool = (name: string) => ({
  type: 'function',
  function: { name, description: `does ${name}`, parameters: { type: 'object', properties: {}, required: [] } },
});

describe('svc agents create / get / list / update / delete', () => {
  it(
    'creates from flags (@FILE instructions, tool files holding one tool or an array) and shows it ' + 'in a pipe',
    async () => {
      const dir = tempDir();
      writeFileSync(join(dir, 'prompt.md'), 'You answer the phone.\nBe brief.');
      writeFileSync(join(dir, 'one.json'), JSON.stringify(fnTool('lookup')));
      writeFileSync(join(dir, 'many.json'), JSON.stringify([fnTool('book'), { type: 'web_search' }]));
      const r = await svcInProcess(
        [
          'agents',
          'create',
          '--name',
          'desk',
          '--voice',
          'EVE',
          '--vad-threshold',
          '0.4',
          '--vad-silence-ms',
          '700',
          '--instructions',
          `@${join(dir, 'prompt.md')}`,
          '--tool',
          join(dir, 'one.json'),
          '--tool',
          join(dir, 'many.json'),
          '--collection',
          'col_1',
          '--collection',
          'col_2',
        ],
        { emu },
      );
      expect(r.exitCode).toBe(0);
      const rows = Object.fromEntries(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => l.split('\t')),
      );
      expect(rows.name).toBe('desk');
      expect(rows.voice).toBe('eve');
      expect(rows.vad_threshold).toBe('0.4');
      expect(rows.vad_silence_duration_ms).toBe('700');
      expect(rows.tools).toBe('3: function:lookup, function:book, web_search');
      expect(rows.collection_ids).toBe('col_1, col_2');
      expect(rows.instructions).toBe('You answer the phone.… (31 characters)');
      const sent = JSON.parse(emu.requests().find((q) => q.method === 'POST' && q.path === '/v1/agents')!.body!);
      expect(sent).toEqual({
        name: 'desk',
        instructions: 'You answer the phone.\nBe brief.',
        tools: [fnTool('lookup'), fnTool('book'), { type: 'web_search' }],
        collection_ids: ['col_1', 'col_2'],
        voice: { voice_id: 'eve', vad_threshold: 0.4, vad_silence_duration_ms: 700 },
      });
    },
  );

  it('creates from -f FILE with flags overriding, --json prints the agent as sent by the API', async () => {
    const file = writeTemp(
      'agent.json',
      JSON.stringify({ name: 'from file', instructions: 'hi', voice: { voice_id: 'rex' } }),
    );
    const r = await svcInProcess(['agents', 'create', '-f', file, '--name', 'overridden', '--json'], { emu });
    expect(r.exitCode).toBe(0);
    // the reply as the API sent it: the agent in its {agent} wrapper (docs/scripting.md)
    const reply = JSON.parse(r.stdout);
    expect(Object.keys(reply)).toEqual(['agent']);
    const a = reply.agent;
    expect(a).toMatchObject({ name: 'overridden', instructions: 'hi', voice: { voice_id: 'rex' }, collection_ids: [] });
    expect(a.agent_id).toMatch(/^agent_/);
    expect(a.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
    const got = await svcInProcess(['agents', 'get', a.agent_id, '--json', '--jq', '.agent'], { emu });
    expect(JSON.parse(got.stdout)).toEqual(a);
  });

  it('lists agents: TSV rows in a pipe, one JSON object per line with --json, --limit sent', async () => {
    const r = await svcInProcess(['agents', 'list'], { emu });
    expect(r.exitCode).toBe(0);
    const names = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[1]);
    expect(names).toEqual(['desk', 'overridden']);
    emu.clearRequests();
    const j = await svcInProcess(['agents', 'list', '--limit', '1', '--json'], { emu });
    const lines = j.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).name).toBe('desk');
    expect(emu.requests()[0]!.query).toEqual({ limit: '1' });
  });

  it('update sends a field mask of exactly the fields given, merging VAD flags into the current voice', async () => {
    const a = JSON.parse(
      (
        await svcInProcess(
          [
            'agents',
            'create',
            '--name',
            'mask',
            '--voice',
            'sal',
            '--vad-threshold',
            '0.2',
            '--instructions',
            'x',
            '--json',
            '--jq',
            '.agent',
          ],
          { emu },
        )
      ).stdout,
    );
    emu.clearRequests();
    const r = await svcInProcess(
      [
        'agents',
        'update',
        a.agent_id,
        '--vad-silence-ms',
        '900',
        '--clear',
        'instructions',
        '--json',
        '--jq',
        '.agent',
      ],
      { emu },
    );
    expect(r.exitCode).toBe(0);
    const patch = JSON.parse(emu.requests().find((q) => q.method === 'PATCH')!.body!);
    expect(patch.field_mask.paths.sort()).toEqual(['instructions', 'voice']);
    expect(patch.agent).toEqual({ voice: { voice_id: 'sal', vad_threshold: 0.2, vad_silence_duration_ms: 900 } });
    const after = JSON.parse(r.stdout);
    expect(after.instructions).toBeNull();
    expect(after.voice).toEqual({ voice_id: 'sal', vad_threshold: 0.2, vad_silence_duration_ms: 900 });
    expect(after.name).toBe('mask');
    expect(r.stderr).toContain('updated voice, instructions');
  });

  it('update with nothing to change, or set and clear of one field, is a usage error', async () => {
    emu.clearRequests();
    const none = await svcInProcess(['agents', 'update', 'agent_x'], { emu });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('nothing to update');
    const both = await svcInProcess(
      ['agents', 'update', 'agent_x', '--clear', 'tools', '--tool', writeTemp('t.json', JSON.stringify(fnTool('a')))],
      { emu },
    );
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('--clear tools');
    const two = await svcInProcess(['agents', 'update', 'agent_x', '--phone-number', 'pn_1', '--unassign-phone'], {
      emu,
    });
    expect(two.exitCode).toBe(2);
    const badClear = await svcInProcess(['agents', 'update', 'agent_x', '--clear', 'name'], { emu });
    expect(badClear.exitCode).toBe(2);
    expect(badClear.stderr).toContain('instructions, tools, voice, collection_ids');
    expect(emu.requests()).toHaveLength(0);
  });

  it('delete without --yes in a script exits 2 and sends nothing; a missing agent exits 5', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'delete', 'agent_nope'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--yes');
    expect(emu.requests()).toHaveLength(0);
    const missing = await svcInProcess(['agents', 'delete', 'agent_nope', '--yes'], { emu });
    expect(missing.exitCode).toBe(5);
  });

  it('a key without agent access gets exit 4', async () => {
    const rec = emu.addKey({ acls: ['api-key:endpoint:chat', 'api-key:model:*'] });
    const { registerSecret } = await import('../../helpers/secrets.js');
    registerSecret(rec.key);
    const r = await svcInProcess(['agents', 'list'], { emu, key: rec.key });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/HTTP 403/);
  });
});

describe('agent limits are checked before sending (exit 2, nothing sent)', () => {
  const cases: [string, string[], RegExp][] = [
    ['name over 255 characters', ['--name', 'n'.repeat(256)], /--name: .* at most 255 characters \(got 256\)/],
    [
      'instructions over 256,000 characters',
      ['--name', 'a', '--instructions', `@${writeTemp('big.txt', 'i'.repeat(256_001))}`],
      /--instructions: .* at most 256,000 characters \(got 256,001\)/,
    ],
    [
      'more than 200 tools',
      [
        '--name',
        'a',
        '--tool',
        writeTemp('tools.json', JSON.stringify(Array.from({ length: 201 }, (_, i) => fnTool(`f${i}`)))),
      ],
      /--tool: 201 tools is not allowed: at most 200 tools per agent/,
    ],
    [
      'more than 10 collections',
      ['--name', 'a', ...Array.from({ length: 11 }, (_, i) => ['--collection', `c${i}`]).flat()],
      /--collection: 11 values is not allowed: at most 10/,
    ],
    [
      'VAD threshold above 1',
      ['--name', 'a', '--vad-threshold', '1.5'],
      /--vad-threshold: 1.5 is not allowed: a number from 0 to 1/,
    ],
    [
      'VAD threshold below 0',
      ['--name', 'a', '--vad-threshold', '-0.1'],
      /--vad-threshold: -0.1 is not allowed: a number from 0 to 1/,
    ],
    [
      'VAD silence above 10,000 ms',
      ['--name', 'a', '--vad-silence-ms', '10001'],
      /--vad-silence-ms: 10001 is not allowed: a whole number from 0 to 10000/,
    ],
    [
      'unknown voice id',
      ['--name', 'a', '--voice', 'bob'],
      /--voice: bob is not allowed: a built-in voice \(eve, ara, rex, sal, leo, any case\) or a custom voice id/,
    ],
    [
      'tool of an unknown kind',
      ['--name', 'a', '--tool', writeTemp('k.json', JSON.stringify({ type: 'code_interpreter' }))],
      /--tool: tool 1 .* one of function, web_search, x_search, file_search, mcp/,
    ],
    ['missing name', ['--voice', 'eve'], /--name is required/],
  ];
  for (const [rule, args, message] of cases) {
    it(rule, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['agents', 'create', ...args], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('limits in -f FILE are named by the file and field', async () => {
    const file = writeTemp(
      'agent.json',
      JSON.stringify({ name: 'a', voice: { voice_id: 'eve', vad_silence_duration_ms: 20000 } }),
    );
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'create', '-f', file], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      `${file}: voice.vad_silence_duration_ms: 20000 is not allowed: a whole number of milliseconds from 0 to 10,000`,
    );
    expect(emu.requests()).toHaveLength(0);
  });

  it('list --limit is 1 to 1000', async () => {
    emu.clearRequests();
    for (const bad of ['0', '1001']) {
      const r = await svcInProcess(['agents', 'list', '--limit', bad], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`--limit: ${bad} is not allowed: a whole number from 1 to 1000`);
    }
    expect(emu.requests()).toHaveLength(0);
  });

  it('update checks the same limits', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'update', 'agent_x', '--name', 'n'.repeat(256)], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--name');
    expect(emu.requests()).toHaveLength(0);
  });
});
