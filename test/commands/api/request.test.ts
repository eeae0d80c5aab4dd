import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPath, typedValue } from '../../../src/commands/api/request.js';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir, writeTemp } from '../../helpers/files.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('field parsing', () => {
  it('types -F values and nests keys', () => {
    expect(typedValue('true')).toBe(true);
    expect(typedValue('null')).toBe(null);
    expect(typedValue('42')).toBe(42);
    expect(typedValue('-1.5')).toBe(-1.5);
    expect(typedValue('[1,2]')).toEqual([1, 2]);
    expect(typedValue('hello')).toBe('hello');
    const o: Record<string, unknown> = {};
    setPath(o, 'a.b', 1);
    setPath(o, 'a[c]', 2);
    setPath(o, 'list[]', 'x');
    setPath(o, 'list[]', 'y');
    expect(o).toEqual({ a: { b: 1, c: 2 }, list: ['x', 'y'] });
  });
});

describe('svc api', () => {
  it('GET prints the body as sent (one compact line in a pipe)', async () => {
    const r = await svcInProcess(['api', 'GET', '/v1/models/svc-4'], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'svc-4', object: 'model' });
  });

  it('POST sends -f/-F fields as a JSON body', async () => {
    emu.clearRequests();
    const r = await svcInProcess(
      [
        'api',
        'post',
        '/v1/chat/completions',
        '-f',
        'model=svc-4',
        '-F',
        'messages[][role]=user',
        '-F',
        'max_completion_tokens=3',
        '-F',
        'stream=false',
      ],
      { emu },
    );
    // messages[][role] builds [{role: 'user'}]; content is missing so the emulator's message text is empty, but valid
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(emu.requests().at(-1)!.body!)).toEqual({
      model: 'svc-4',
      messages: [{ role: 'user' }],
      max_completion_tokens: 3,
      stream: false,
    });
    expect(JSON.parse(r.stdout).choices[0].finish_reason).toBe('length');
  });

  it('--input sends a file as the body', async () => {
    const body = writeTemp(
      'b.json',
      JSON.stringify({ model: 'svc-4', messages: [{ role: 'user', content: 'from a file' }] }),
    );
    const r = await svcInProcess(['api', 'POST', '/v1/chat/completions', '--input', body], { emu });
    expect(JSON.parse(r.stdout).choices[0].message.content).toMatch(/from a file/);
  });

  it('GET fields become query parameters; -i shows status and headers on stderr', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['api', 'GET', '/v1/models', '-f', 'x=1', '-i'], { emu });
    expect(emu.requests().at(-1)!.query).toEqual({ x: '1' });
    expect(r.stderr).toMatch(/^HTTP 200\n/);
    expect(r.stderr).toMatch(/x-request-id: [0-9a-f-]{36}/);
  });

  it('maps API errors to exit codes and shows the message and request id', async () => {
    const r = await svcInProcess(['api', 'GET', '/v1/models/missing'], { emu });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/missing does not exist.*HTTP 404, not-found, request id [0-9a-f-]{36}/);
  });

  it('rejects a bad method, a bad path and an Authorization header before sending', async () => {
    emu.clearRequests();
    expect((await svcInProcess(['api', 'FETCH', '/v1/models'], { emu })).stderr).toMatch(
      /METHOD: FETCH .*GET, POST, PUT, PATCH, DELETE, HEAD/,
    );
    expect((await svcInProcess(['api', 'GET', 'v1/models'], { emu })).stderr).toMatch(
      /PATH: v1\/models .*starting with \//,
    );
    const h = await svcInProcess(['api', 'GET', '/v1/models', '-H', 'Authorization: Bearer x'], { emu });
    expect(h.exitCode).toBe(2);
    expect(h.stderr).toMatch(/--header: Authorization .*any header but Authorization/);
    expect(emu.requests()).toHaveLength(0);
  });
});

describe('svc api fields and files (issue 25, items 14 and 20)', () => {
  it('-f/--raw-field is a string as given, -F/--field is typed, as in gh', async () => {
    emu.clearRequests();
    const r = await svcInProcess(
      ['api', '/v1/tokenize-text', '--raw-field', 'text=42', '-f', 'model=svc-4', '--field', 'n=42', '-F', 'b=true'],
      { emu },
    );
    expect(r.exitCode, r.stderr).not.toBe(2);
    expect(JSON.parse(emu.requests().at(-1)!.body!)).toEqual({ text: '42', model: 'svc-4', n: 42, b: true });
  });

  it('a file that cannot be read is exit 2 naming the flag and the reason, nothing sent', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'folder'));
    for (const [args, want] of [
      [
        ['--input', join(dir, 'missing.json')],
        /^error: --input: cannot read .*missing\.json: no such file or directory/,
      ],
      [['--input', join(dir, 'folder')], /^error: --input: cannot read .*folder: it is a directory \(EISDIR\)/],
      [['-F', `text=@${join(dir, 'missing.txt')}`], /^error: -F\/--field: cannot read .*missing\.txt: no such file/],
      [['--field', `text=@${join(dir, 'folder')}`], /^error: -F\/--field: cannot read .*folder: it is a directory/],
    ] as [string[], RegExp][]) {
      emu.clearRequests();
      const r = await svcInProcess(['api', '/v1/tokenize-text', ...args], { emu });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(want);
      expect(emu.requests()).toEqual([]);
    }
  });

  it('--input - sends stdin as bytes (not decoded as text)', async () => {
    emu.clearRequests();
    const body = JSON.stringify({ model: 'svc-4', text: 'héllo' });
    const r = await svcInProcess(['api', '/v1/tokenize-text', '--input', '-'], { emu, input: body });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(emu.requests().at(-1)!.body).toBe(body);
  });
});
