import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (cli(): the same command tree, in-memory streams, the key scan): see test/helpers/cli.ts.
import { startTestEmulator, cli as svc, tempDir, type TestEmulator } from '../../helpers/cli.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const chatBodies = () => emu.requests().filter((r) => r.path === '/v1/chat/completions').map((r) => JSON.parse(r.body!));

describe('chat conversations kept locally', () => {
  it('`cat a.txt | svc chat "summarize"` then `svc chat -c "and now shorter"` continue in a pipe', async () => {
    const configDir = tempDir();
    emu.clearRequests();
    const first = await svc(['chat', 'summarize'], { emu, configDir, input: 'A long text about tides and the moon.\n' });
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(/^This is the emulator's answer to "summarize A long text about tides/);
    const second = await svc(['chat', '-c', 'and now shorter'], { emu, configDir });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toMatch(/^This is the emulator's answer to "and now shorter"/);
    const [b1, b2] = chatBodies();
    expect(b1.messages).toEqual([{ role: 'user', content: 'summarize\n\nA long text about tides and the moon.' }]);
    expect(b2.messages).toEqual([
      { role: 'user', content: 'summarize\n\nA long text about tides and the moon.' },
      { role: 'assistant', content: first.stdout.trimEnd() },
      { role: 'user', content: 'and now shorter' },
    ]);

    const list = await svc(['conversations', 'list'], { emu, configDir });
    const rows = list.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(rows).toHaveLength(1);
    const [id, , model, turns, title] = rows[0]!;
    expect(id).toMatch(/^conv_/);
    expect([model, turns, title]).toEqual(['svc-4', '2', 'summarize A long text about tides and the moon.']);

    const show = await svc(['conversations', 'show'], { emu, configDir });
    expect(show.stdout.split('\n').filter((l) => /^(user|assistant): /.test(l))).toHaveLength(4);
    const json = await svc(['conversations', 'show', id!, '--json'], { emu, configDir });
    expect(JSON.parse(json.stdout).messages).toHaveLength(4);

    // --conversation ID continues that one; -s replaces the system prompt
    emu.clearRequests();
    await svc(['chat', '--conversation', id!, '-s', 'be terse', 'third'], { emu, configDir });
    const [b3] = chatBodies();
    expect(b3.messages[0]).toEqual({ role: 'system', content: 'be terse' });
    expect(b3.messages).toHaveLength(6);

    const del = await svc(['conversations', 'delete', id!, '--yes'], { emu, configDir });
    expect(del.stdout).toBe(`${id}\tdeleted\n`);
    const gone = await svc(['conversations', 'show', id!], { emu, configDir });
    expect(gone.exitCode).toBe(5);
    const cont = await svc(['chat', '-c', 'x'], { emu, configDir });
    expect(cont.exitCode).toBe(2);
    expect(cont.stderr).toContain('no conversation to continue');
  });

  it('--no-save keeps nothing; --json lists one summary per line', async () => {
    const configDir = tempDir();
    await svc(['chat', '--no-save', 'hi'], { emu, configDir });
    expect((await svc(['conversations', 'list', '--json'], { emu, configDir })).stdout).toBe('');
    await svc(['chat', 'hello'], { emu, configDir });
    await svc(['chat', 'again'], { emu, configDir });
    const lines = (await svc(['conversations', 'list', '--json'], { emu, configDir })).stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ turns: 1, model: 'svc-4', profile: 'default' });
  });
});

const cases: [string, string[], RegExp][] = [
  ['-c together with --conversation', ['-c', '--conversation', 'conv_abcdef12'], /--conversation: conv_abcdef12 .*not together with -c/],
  ['--deferred with -c', ['--deferred', '-c'], /--deferred: .*not together with -c/],
  ['--deferred with -i', ['--deferred', '-i'], /--deferred: .*not together with -i/],
  ['an unknown conversation', ['--conversation', 'conv_doesnotexist'], /--conversation: conv_doesnotexist is not a conversation kept here/],
];

describe('conversation flags are checked before sending', () => {
  for (const [name, args, message] of cases) {
    it(name, async () => {
      emu.clearRequests();
      const r = await svc(['chat', ...args, 'hi'], { emu });
      expect(r.stderr).toMatch(message);
      expect(r.exitCode).toBe(2);
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('deleting an unknown conversation exits 5', async () => {
    const r = await svc(['conversations', 'delete', 'conv_nothere1', '--yes'], { emu });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('no conversation conv_nothere1');
  });
});
