import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ tokenDelayMs: 0 });
});
afterAll(() => emu.close());

const records = async (configDir: string, ...args: string[]) => {
  const r = await svcInProcess(['logs', '--json', ...args], { emu, configDir });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.trim()
    ? r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [];
};

describe('svc logs', () => {
  it(
    'records every call (status, request id, duration, model, prompt, answer) and never the key; --no-log and ' +
      '`log false` record nothing',
    async () => {
      const configDir = tempDir();
      expect((await svcInProcess(['chat', 'tell me about tides'], { emu, configDir })).exitCode).toBe(0);
      expect((await svcInProcess(['tokenize', 'abc def'], { emu, configDir })).exitCode).toBe(0);
      expect((await svcInProcess(['files', 'get', 'file_nope'], { emu, configDir })).exitCode).toBe(5);
      expect((await svcInProcess(['models', 'list', '--no-log'], { emu, configDir })).exitCode).toBe(0);
      const recs = await records(configDir);
      expect(recs.map((r) => [r.command, r.status])).toEqual([
        ['files get', 404],
        ['tokenize', 200],
        ['chat', 200],
      ]);
      const chat = recs[2];
      expect(chat).toMatchObject({
        method: 'POST',
        path: '/v1/chat/completions',
        model: 'svc-4',
        prompt: 'tell me about tides',
      });
      expect(chat.answer).toMatch(/^This is the emulator's answer to "tell me about tides"/);
      expect(chat.request_id).toMatch(/\S/);
      expect(chat.usage.total_tokens).toBeGreaterThan(0);
      expect(chat.cost_usd).toBeGreaterThan(0);
      expect(recs[0].error).toMatch(/file_nope|not found/i);
      const files = readdirSync(join(configDir, 'data', 'logs'));
      expect(files).toEqual([`calls-${new Date().toISOString().slice(0, 10)}.jsonl`]);

      expect((await svcInProcess(['config', 'set', 'log', 'false'], { configDir })).exitCode).toBe(0);
      expect((await svcInProcess(['chat', 'not logged'], { emu, configDir })).exitCode).toBe(0);
      expect(await records(configDir)).toHaveLength(3);
      const bad = await svcInProcess(['config', 'set', 'log', 'maybe'], { configDir });
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toMatch(/log.*maybe.*true or false/);
    },
  );

  it('--model, --grep, --command and --since filter; a pipe gets TSV rows; show prints the turn readably', async () => {
    const configDir = tempDir();
    await svcInProcess(['chat', '-m', 'svc-4-mini', 'the INVOICE for march'], { emu, configDir });
    await svcInProcess(['chat', 'something else'], { emu, configDir });
    await svcInProcess(['models', 'list'], { emu, configDir });
    expect((await records(configDir, '--model', 'svc-4-mini')).map((r) => r.prompt)).toEqual(['the INVOICE for march']);
    expect((await records(configDir, '--grep', 'invoice')).map((r) => r.model)).toEqual(['svc-4-mini']);
    expect((await records(configDir, '--command', 'models')).map((r) => r.command)).toEqual(['models list']);
    expect(await records(configDir, '--since', '1h')).toHaveLength(3);
    const tsv = await svcInProcess(['logs'], { emu, configDir });
    const rows = tsv.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows).toHaveLength(3);
    expect(rows[0]![1]).toBe('models list');
    const id = rows[2]![8]!;
    expect(id).toMatch(/^\d{8}-\d{6}-[a-z0-9]{8}$/);
    const show = await svcInProcess(['logs', 'show', id], { emu, configDir });
    expect(show.exitCode).toBe(0);
    expect(show.stdout).toMatch(/^command\tchat$/m);
    expect(show.stdout).toMatch(
      /\nuser:\nthe INVOICE for march\n\nassistant:\nThis is the emulator's answer to "the INVOICE for march"/,
    );
    const missing = await svcInProcess(['logs', 'show', '20200101-000000-aaaaaaaa'], { emu, configDir });
    expect(missing.exitCode).toBe(5);
    expect(missing.stderr).toMatch(/no logged call 20200101-000000-aaaaaaaa/);
  });

  it(
    'rm follows the confirmation rule: exit 2 off a terminal without --yes (nothing removed), then by id and ' +
      '--all',
    async () => {
      const configDir = tempDir();
      await svcInProcess(['models', 'list'], { emu, configDir });
      await svcInProcess(['models', 'list'], { emu, configDir });
      const [a, b] = await records(configDir);
      const refused = await svcInProcess(['logs', 'rm', a.id], { emu, configDir });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toMatch(/pass --yes/);
      expect(await records(configDir)).toHaveLength(2);
      const rm = await svcInProcess(['logs', 'rm', a.id, '--yes'], { emu, configDir });
      expect(rm.exitCode, rm.stderr).toBe(0);
      expect((await records(configDir)).map((r) => r.id)).toEqual([b.id]);
      const both = await svcInProcess(['logs', 'rm', b.id, '--all', '--yes'], { emu, configDir });
      expect(both.exitCode).toBe(2);
      expect(both.stderr).toMatch(/one of them/);
      expect((await svcInProcess(['logs', 'rm', '--all', '--yes'], { emu, configDir })).exitCode).toBe(0);
      expect(existsSync(join(configDir, 'data', 'logs', `calls-${new Date().toISOString().slice(0, 10)}.jsonl`))).toBe(
        false,
      );
      expect(await records(configDir)).toEqual([]);
    },
  );

  it('rm by id when the day file cannot be written: the file system error, exit 1, not "not in the log"', async () => {
    const configDir = tempDir();
    await svcInProcess(['models', 'list'], { emu, configDir });
    const [rec] = await records(configDir);
    // a day file that cannot be opened for writing (a directory in its place: root ignores permission bits)
    const file = join(configDir, 'data', 'logs', `calls-${rec.time.slice(0, 10)}.jsonl`);
    renameSync(file, `${file}.kept`);
    mkdirSync(file);
    const r = await svcInProcess(['logs', 'rm', rec.id, '--yes'], { emu, configDir });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`${file}: it is a directory (EISDIR)`);
    expect(r.stderr).not.toMatch(/deleted|not in the log/);
  });
});

describe('svc logs on a terminal', () => {
  it('keeps the time of day at 100 columns: the prompt and the command give way first', async () => {
    const configDir = tempDir();
    expect(
      (await svcInProcess(['chat', 'a prompt long enough to need cutting at this width'], { emu, configDir })).exitCode,
    ).toBe(0);
    expect((await svcInProcess(['tokenize', 'abc def'], { emu, configDir })).exitCode).toBe(0);
    const r = await svcInProcess(['logs'], { emu, configDir, tty: true, columns: 100 });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const line of lines.slice(1)) {
      expect(line.length).toBeLessThanOrEqual(100);
      expect(line).toMatch(/^\d\d-\d\d \d\d:\d\d:\d\d  /);
      expect(line).toMatch(/ \d{8}-\d{6}-\w+$/);
    }
  });
});

describe('svc logs --grep', () => {
  it('finds a document search by its query, logged like a prompt (issue 25, item 26)', async () => {
    const configDir = tempDir();
    const r = await svcInProcess(['documents', 'search', 'refund policy for broken kettles', '--collection', 'c1'], {
      emu,
      configDir,
    });
    expect(r.exitCode, r.stderr).not.toBe(2); // sent (the emulator has no such collection: a logged 400)
    const found = await svcInProcess(['logs', '--json', '--grep', 'broken kettles'], { emu, configDir });
    const recs = found.stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(recs).toHaveLength(1);
    expect(recs[0]).toMatchObject({ command: 'documents search', prompt: 'refund policy for broken kettles' });
  });
});
