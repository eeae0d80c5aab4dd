// `--json FIELD,FIELD`: which word after --json is a field list, the check against the documented fields, and what
// is printed (in a pipe and on a terminal), through the CLI in-process against the emulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitJsonFields, type JsonFieldsRule } from '../../src/cmdutil/json-fields.js';
import { projectFields } from '../../src/term/json-fields.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { writeTemp } from '../helpers/files.js';

const rule = (over: Partial<JsonFieldsRule>): JsonFieldsRule => ({
  pathWords: 2,
  globalsWithValue: new Set(['--profile']),
  rootNames: new Set(['models', 'chat']),
  takesArgs: false,
  documented: new Set(['id', 'name', 'usage']),
  ...over,
});

describe('the word after --json', () => {
  it('is a field list for a command without positional arguments', () => {
    expect(splitJsonFields(['models', 'list', '--json', 'id'], rule({}))).toEqual({
      argv: ['models', 'list', '--json'],
      fields: ['id'],
    });
  });
  it('is the command before the command words (svc --json models list)', () => {
    expect(splitJsonFields(['--json', 'models', 'list'], rule({})).fields).toBeUndefined();
    expect(splitJsonFields(['--json', 'id,name', 'models', 'list'], rule({})).fields).toEqual(['id', 'name']);
  });
  it('stays a positional when the command takes one and the word names no documented field', () => {
    const r = rule({ pathWords: 1, takesArgs: true });
    expect(splitJsonFields(['chat', '--json', 'hello'], r)).toEqual({ argv: ['chat', '--json', 'hello'] });
    expect(splitJsonFields(['chat', '--json', 'Hello there'], r).fields).toBeUndefined();
    expect(splitJsonFields(['chat', '--json', 'svc-4'], r).fields).toBeUndefined();
    // a documented field, a list with a comma, or --json=: a field list
    expect(splitJsonFields(['chat', '--json', 'usage'], r).fields).toEqual(['usage']);
    expect(splitJsonFields(['chat', '--json', 'a,b'], r).fields).toEqual(['a', 'b']);
    expect(splitJsonFields(['chat', '--json=model', 'hello'], r)).toEqual({
      argv: ['chat', '--json', 'hello'],
      fields: ['model'],
    });
  });
  it('is never read after --, nor as the value of a global flag', () => {
    expect(splitJsonFields(['models', 'list', '--', '--json', 'id'], rule({})).fields).toBeUndefined();
    expect(splitJsonFields(['--profile', 'id', 'models', 'list', '--json'], rule({})).argv).toEqual([
      '--profile',
      'id',
      'models',
      'list',
      '--json',
    ]);
  });
});

describe('projectFields', () => {
  it('keeps the fields asked for, a dotted one under its parent, in the order asked', () => {
    const v = { id: 'a', name: 'n', usage: { total: 3, prompt: 1 }, extra: 1 };
    expect(projectFields(v, ['usage.total', 'id'])).toEqual({ usage: { total: 3 }, id: 'a' });
    expect(JSON.stringify(projectFields(v, ['name', 'id']))).toBe('{"name":"n","id":"a"}');
    expect(projectFields(v, ['missing'])).toEqual({});
  });
});

describe.concurrent('svc … --json FIELD,FIELD', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => emu.close());

  it('a list prints the fields of each row, one JSON value per line, in a pipe', async () => {
    const r = await svcInProcess(['models', 'list', '--json', 'id,owned_by'], { emu });
    expect(r.exitCode).toBe(0);
    const rows = r.stdout.trim().split('\n');
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) expect(Object.keys(JSON.parse(row))).toEqual(['id', 'owned_by']);
    expect(rows).toContain('{"id":"svc-4","owned_by":"svc"}');
  });

  it('agents list: the fields of the documented agent rows', async () => {
    const made = await svcInProcess(['agents', 'create', '--name', 'fields-agent'], { emu });
    expect(made.exitCode, made.stderr).toBe(0);
    const r = await svcInProcess(['agents', 'list', '--json', 'agent_id,name'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.find((a) => a.name === 'fields-agent')).toEqual({ agent_id: expect.any(String), name: 'fields-agent' });
    for (const row of rows) expect(Object.keys(row)).toEqual(['agent_id', 'name']);
    const bad = await svcInProcess(['agents', 'list', '--json', 'id'], { emu });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('unknown field "id" for svc agents list; valid: agent_id, collection_ids');
  });

  it('bare --json still prints every field', async () => {
    const r = await svcInProcess(['models', 'list', '--json'], { emu });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout.split('\n')[0]!)).toMatchObject({ id: 'svc-4', object: 'model', created: 1735689600 });
  });

  it('one object on a terminal: pretty, the chosen fields only; a positional after a bare --json', async () => {
    const r = await svcInProcess(['models', 'get', 'svc-4', '--json', 'id,aliases'], { emu, tty: true });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 'svc-4', aliases: ['svc-latest', 'svc-4-latest'] });
    expect(r.stdout).toContain('\n  "id": "svc-4"');
    const whole = await svcInProcess(['models', 'get', '--json', 'svc-4'], { emu });
    expect(JSON.parse(whole.stdout)).toMatchObject({ id: 'svc-4', owned_by: 'svc', object: 'model' });
  });

  it('--json=FIELDS before the command and --jq after the selection', async () => {
    const r = await svcInProcess(['--json=id', 'models', 'list', '--jq', 'keys | join(",")'], { emu });
    expect(r.exitCode).toBe(0);
    expect(new Set(r.stdout.trim().split('\n'))).toEqual(new Set(['id']));
  });

  it('an unknown field: exit 2 listing the valid ones, nothing sent', async () => {
    const own = await startTestEmulator();
    try {
      const r = await svcInProcess(['files', 'list', '--json', 'id,nme'], { emu: own });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('unknown field "nme" for svc files list; valid: ');
      expect(r.stderr).toContain('filename');
      expect(r.stdout).toBe('');
      const chat = await svcInProcess(['chat', '--json', 'id,x', 'hi'], { emu: own });
      expect(chat.exitCode).toBe(2);
      expect(chat.stderr).toContain('svc chat prints no documented resource');
      const bad = await svcInProcess(['models', 'list', '--json=Id'], { emu: own });
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toContain('"Id" is not a field list');
      expect(own.requests()).toHaveLength(0);
    } finally {
      await own.close();
    }
  });

  it('keeps the cursor record whole (--page-token scripts read it)', async () => {
    const own = await startTestEmulator();
    try {
      const up = await svcInProcess(['files', 'upload', writeTemp('a.txt', 'a'), writeTemp('b.txt', 'b')], {
        emu: own,
      });
      expect(up.exitCode, up.stderr).toBe(0);
      const r = await svcInProcess(['files', 'list', '--limit', '1', '--json', 'id'], { emu: own });
      expect(r.exitCode).toBe(0);
      const [row, cursor] = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(Object.keys(row)).toEqual(['id']);
      expect(cursor).toHaveProperty('next_page_token');
    } finally {
      await own.close();
    }
  });
});
