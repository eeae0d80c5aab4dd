import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const chatBodies = () =>
  emu
    .requests()
    .filter((r) => r.path === '/v1/chat/completions')
    .map((r) => JSON.parse(r.body!));

describe('chat conversations kept locally', () => {
  it('`cat a.txt | svc chat "summarize"` then `svc chat -c "and now shorter"` continue in a pipe', async () => {
    const configDir = tempDir();
    emu.clearRequests();
    const first = await svcInProcess(['chat', 'summarize'], {
      emu,
      configDir,
      input: 'A long text about tides and the moon.\n',
    });
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(/^This is the emulator's answer to "summarize A long text about tides/);
    const second = await svcInProcess(['chat', '-c', 'and now shorter'], { emu, configDir });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toMatch(/^This is the emulator's answer to "and now shorter"/);
    const [b1, b2] = chatBodies();
    expect(b1.messages).toEqual([{ role: 'user', content: 'summarize\n\nA long text about tides and the moon.' }]);
    expect(b2.messages).toEqual([
      { role: 'user', content: 'summarize\n\nA long text about tides and the moon.' },
      { role: 'assistant', content: first.stdout.trimEnd() },
      { role: 'user', content: 'and now shorter' },
    ]);

    const list = await svcInProcess(['conversations', 'list'], { emu, configDir });
    const rows = list.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows).toHaveLength(1);
    const [id, , model, turns, title] = rows[0]!;
    expect(id).toMatch(/^conv_/);
    expect([model, turns, title]).toEqual(['svc-4', '2', 'summarize A long text about tides and the moon.']);

    const show = await svcInProcess(['conversations', 'show'], { emu, configDir });
    expect(show.stdout.split('\n').filter((l) => /^(user|assistant): /.test(l))).toHaveLength(4);
    const json = await svcInProcess(['conversations', 'show', id!, '--json'], { emu, configDir });
    expect(JSON.parse(json.stdout).messages).toHaveLength(4);

    // --conversation ID continues that one; -s replaces the system prompt
    emu.clearRequests();
    await svcInProcess(['chat', '--conversation', id!, '-s', 'be terse', 'third'], { emu, configDir });
    const [b3] = chatBodies();
    expect(b3.messages[0]).toEqual({ role: 'system', content: 'be terse' });
    expect(b3.messages).toHaveLength(6);

    const del = await svcInProcess(['conversations', 'delete', id!, '--yes'], { emu, configDir });
    expect(del.stdout).toBe(`${id}\tdeleted\n`);
    const gone = await svcInProcess(['conversations', 'show', id!], { emu, configDir });
    expect(gone.exitCode).toBe(5);
    const cont = await svcInProcess(['chat', '-c', 'x'], { emu, configDir });
    expect(cont.exitCode).toBe(2);
    expect(cont.stderr).toContain('no conversation to continue');
  });

  it(
    'the last conversation is a link last/<profile> (no file rewritten); last.json of an older svc is still ' +
      'read when newer; without links last.json is kept',
    async () => {
      const configDir = tempDir();
      const dir = join(configDir, 'data', 'conversations');
      const idOf = (stdout: string) => JSON.parse(stdout).id as string;
      await svcInProcess(['chat', 'first'], { emu, configDir });
      const [firstId] = readdirSync(dir)
        .filter((n) => n.startsWith('conv_'))
        .map((n) => n.slice(0, -5));
      expect(lstatSync(join(dir, 'last', 'default')).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(dir, 'last', 'default'))).toBe(firstId);
      expect(existsSync(join(dir, 'last.json'))).toBe(false);
      // messages keep their own last one
      await svcInProcess(['messages', 'in messages'], { emu, configDir });
      expect(readdirSync(join(dir, 'last')).sort()).toEqual(['default', 'messages%3Adefault']);

      // an older svc wrote last.json after the link was made: its conversation is the one continued
      const second = await svcInProcess(['chat', 'second', '--no-save'], { emu, configDir });
      expect(second.exitCode).toBe(0);
      const older = {
        id: 'conv_olderversion1',
        profile: 'default',
        model: 'svc-4',
        created_at: 1,
        updated_at: 1,
        messages: [{ role: 'user', content: 'from an older svc' }],
      };
      writeFileSync(join(dir, `${older.id}.json`), JSON.stringify(older));
      writeFileSync(join(dir, 'last.json'), JSON.stringify({ default: older.id }));
      const past = new Date(Date.now() - 60_000);
      utimesSync(join(dir, 'last.json'), new Date(), new Date(Date.now() + 1000));
      emu.clearRequests();
      await svcInProcess(['chat', '-c', 'continue it'], { emu, configDir });
      expect(chatBodies()[0].messages[0]).toEqual({ role: 'user', content: 'from an older svc' });
      // … and once that run has saved, the link is the newer one again
      utimesSync(join(dir, 'last.json'), past, past);
      emu.clearRequests();
      await svcInProcess(['chat', '-c', 'once more'], { emu, configDir });
      expect(chatBodies()[0].messages.map((m: { content: string }) => m.content)).toEqual([
        'from an older svc',
        'continue it',
        expect.any(String),
        'once more',
      ]);

      // delete removes the link that names it
      const show = await svcInProcess(['conversations', 'show', '--json'], { emu, configDir });
      const lastId = idOf(show.stdout);
      await svcInProcess(['conversations', 'delete', lastId, '--yes'], { emu, configDir });
      expect(readdirSync(join(dir, 'last'))).toEqual(['messages%3Adefault']);

      // where no link can be made (here last/ is a file), last.json is written and read as before
      const plain = tempDir();
      const plainDir = join(plain, 'data', 'conversations');
      mkdirSync(plainDir, { recursive: true });
      writeFileSync(join(plainDir, 'last'), 'not a folder');
      await svcInProcess(['chat', 'kept in last.json'], { emu, configDir: plain });
      const kept = JSON.parse(readFileSync(join(plainDir, 'last.json'), 'utf8')).default;
      expect(kept).toMatch(/^conv_/);
      emu.clearRequests();
      await svcInProcess(['chat', '-c', 'and continued'], { emu, configDir: plain });
      expect(chatBodies()[0].messages[0]).toEqual({ role: 'user', content: 'kept in last.json' });
      expect(readdirSync(plainDir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    },
  );

  it('--no-save keeps nothing; --json lists one summary per line', async () => {
    const configDir = tempDir();
    await svcInProcess(['chat', '--no-save', 'hi'], { emu, configDir });
    expect((await svcInProcess(['conversations', 'list', '--json'], { emu, configDir })).stdout).toBe('');
    await svcInProcess(['chat', 'hello'], { emu, configDir });
    await svcInProcess(['chat', 'again'], { emu, configDir });
    const lines = (await svcInProcess(['conversations', 'list', '--json'], { emu, configDir })).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ turns: 1, model: 'svc-4', profile: 'default' });
  });
});

const cases: [string, string[], RegExp][] = [
  [
    '-c together with --conversation',
    ['-c', '--conversation', 'conv_abcdef12'],
    /--conversation: conv_abcdef12 .*not together with -c/,
  ],
  ['--deferred with -c', ['--deferred', '-c'], /--deferred: .*not together with -c/],
  ['--deferred with -i', ['--deferred', '-i'], /--deferred: .*not together with -i/],
  [
    'an unknown conversation',
    ['--conversation', 'conv_doesnotexist'],
    /--conversation: conv_doesnotexist is not a conversation kept here/,
  ],
];

describe('conversation flags are checked before sending', () => {
  for (const [name, args, message] of cases) {
    it(name, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['chat', ...args, 'hi'], { emu });
      expect(r.stderr).toMatch(message);
      expect(r.exitCode).toBe(2);
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('deleting an unknown conversation exits 5', async () => {
    const r = await svcInProcess(['conversations', 'delete', 'conv_nothere1', '--yes'], { emu });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('no conversation conv_nothere1');
  });
});
