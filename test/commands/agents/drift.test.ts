// Issue 31, drift as an exit code: `agents diff` and `agents push --dry-run` exit 1 when the server differs from the
// files and 0 when all is in sync (git diff --exit-code), failures exit otherwise; --json prints the difference as
// one JSON object per differing agent; on a terminal the diff is coloured, in a pipe (or with NO_COLOR) it is not.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcOnTerminal } from '../../helpers/terminal.js';

let emu: TestEmulator;
let dir: string;
let ids: Record<string, string>;
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const put = (path: string, value: unknown) => writeFileSync(path, JSON.stringify(value, null, 2));
const file = (name: string) => join(dir, 'agents', `${name}.json`);
const SGR = '\u001b[';

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = join(tempDir(), 'bots');
  expect((await svcInProcess(['agents', 'init', dir], { emu })).exitCode).toBe(0);
  put(file('support'), { name: 'support', instructions: 'Help.\nBe brief.', voice: { voice_id: 'ara' } });
  put(file('sales'), { name: 'sales', instructions: 'Sell.' });
  expect((await svcInProcess(['agents', 'push', dir], { emu })).exitCode).toBe(0);
  const agents = json(join(dir, 'svc-agents.json')).agents;
  ids = { support: agents.support.ids.default, sales: agents.sales.ids.default };
});
afterAll(() => emu.close());

/** Run `fn` with support.json edited, then put it back. */
async function withEdit(fn: () => Promise<void>): Promise<void> {
  const before = readFileSync(file('support'), 'utf8');
  put(file('support'), { ...JSON.parse(before), instructions: 'Help.\nBe kind.', voice: { voice_id: 'rex' } });
  try {
    await fn();
  } finally {
    writeFileSync(file('support'), before);
  }
}

describe('svc agents diff', () => {
  it('exits 0 when all is in sync: nothing on stdout', async () => {
    const r = await svcInProcess(['agents', 'diff', dir], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('all 2 in sync');
  });

  it('exits 1 on a difference; in a pipe a plain diff of the differing agents only (- server, + files)', () =>
    withEdit(async () => {
      emu.clearRequests();
      const r = await svcInProcess(['agents', 'diff', dir], { emu });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).not.toContain(SGR);
      expect(r.stdout).not.toContain('sales');
      expect(r.stdout.split('\n')).toEqual([
        `~ support [default] (${ids.support}): 2 fields differ`,
        '~ instructions',
        '  @@ line 1 @@',
        '    Help.',
        '  - Be brief.',
        '  + Be kind.',
        '~ voice',
        '  @@ line 1 @@',
        '    {',
        '  -   "voice_id": "ara"',
        '  +   "voice_id": "rex"',
        '    }',
        '',
      ]);
      expect(r.stderr).toContain('1 of 2 differ');
      expect(emu.requests().every((q) => q.method === 'GET')).toBe(true);
      // git diff's spelling is accepted and changes nothing
      const spelled = await svcInProcess(['agents', 'diff', dir, '--exit-code'], { emu });
      expect([spelled.exitCode, spelled.stdout]).toEqual([1, r.stdout]);
    }));

  it('--json: one object per differing agent, the fields with the server and the local value', () =>
    withEdit(async () => {
      const r = await svcInProcess(['agents', 'diff', dir, '--json'], { emu });
      expect(r.exitCode).toBe(1);
      expect(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).toEqual([
        {
          agent: 'support',
          env: 'default',
          files: ['agents/support.json'],
          agent_id: ids.support,
          state: 'changed',
          changes: [
            { field: 'instructions', server: 'Help.\nBe brief.', local: 'Help.\nBe kind.' },
            { field: 'voice', server: { voice_id: 'ara' }, local: { voice_id: 'rex' } },
          ],
        },
      ]);
    }));

  it('a new agent file is a difference (state new); -f limits the diff to one agent', async () => {
    put(file('billing'), { name: 'billing' });
    try {
      const r = await svcInProcess(['agents', 'diff', dir, '--json'], { emu });
      expect(r.exitCode).toBe(1);
      expect(JSON.parse(r.stdout)).toMatchObject({ agent: 'billing', agent_id: null, state: 'new' });
      const one = await svcInProcess(['agents', 'diff', '-f', file('sales')], { emu });
      expect(one.exitCode).toBe(0);
    } finally {
      rmSync(file('billing'));
    }
  });

  it('on a terminal the diff is coloured (red -, green +); NO_COLOR turns it off', () =>
    withEdit(async () => {
      const r = await svcOnTerminal(['agents', 'diff', dir], { emu, cols: 100, env: { NO_COLOR: undefined } });
      expect(r.exitCode).toBe(1);
      expect(r.screen).toContain(`${SGR}31m  - Be brief.`);
      expect(r.screen).toContain(`${SGR}32m  + Be kind.`);
      const plain = await svcOnTerminal(['agents', 'diff', dir], { emu, cols: 100, env: { NO_COLOR: '1' } });
      expect(plain.exitCode).toBe(1);
      expect(plain.screen).toContain('  - Be brief.');
      expect(plain.screen).not.toContain(SGR);
    }));

  it('a lone agent file (agent_id inside) compares with its agent; without agent_id it is exit 2', async () => {
    const lone = join(tempDir(), 'agent.json');
    expect((await svcInProcess(['agents', 'pull', ids.sales, '-o', lone], { emu })).exitCode).toBe(0);
    expect((await svcInProcess(['agents', 'diff', '-f', lone], { emu })).exitCode).toBe(0);
    put(lone, { ...json(lone), name: 'sales team' });
    const r = await svcInProcess(['agents', 'diff', '-f', lone, '--json'], { emu });
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      agent: lone,
      files: [lone],
      agent_id: ids.sales,
      state: 'changed',
      changes: [{ field: 'name', server: 'sales', local: 'sales team' }],
    });
    // a lone file's text is compared (and pushed) as written: no reference is resolved
    put(lone, { ...json(lone), name: 'sales', instructions: 'Sell. ${env:NOT_SET_ANYWHERE}' });
    const literal = await svcInProcess(['agents', 'diff', '-f', lone], { emu });
    expect(literal.exitCode).toBe(1);
    expect(literal.stdout).toContain('~ instructions: "Sell." → "Sell. ${env:NOT_SET_ANYWHERE}"');
    put(lone, { name: 'no id' });
    emu.clearRequests();
    const noId = await svcInProcess(['agents', 'diff', '-f', lone], { emu });
    expect(noId.exitCode).toBe(2);
    expect(noId.stderr).toContain('agent_id is required to compare a lone agent file');
    expect(emu.requests()).toHaveLength(0);
  });

  it('failures are not exit 1: no project is 2, a refused key is 4', async () => {
    const none = await svcInProcess(['agents', 'diff'], { emu, cwd: tempDir() });
    expect(none.exitCode).toBe(2);
    const refused = await svcInProcess(['agents', 'diff', dir], { emu, key: 'svc-not-a-key' });
    expect(refused.exitCode).toBe(4);
  });
});

describe('svc agents push --dry-run', () => {
  it('exits 1 when something would change, sends nothing, --json prints the difference; 0 when in sync', () =>
    withEdit(async () => {
      emu.clearRequests();
      const r = await svcInProcess(['agents', 'push', dir, '--dry-run', '--json'], { emu });
      expect(r.exitCode).toBe(1);
      expect(emu.requests().every((q) => q.method === 'GET')).toBe(true);
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ agent: 'support', state: 'changed' });
      expect(lines[0].changes.map((c: { field: string }) => c.field)).toEqual(['instructions', 'voice']);
      expect(r.stderr).toContain('dry run: nothing was sent; 1 of 2 agents differ');
    }));

  it('in sync: exit 0; a lone file --dry-run --json prints its difference and exits 1', async () => {
    const r = await svcInProcess(['agents', 'push', dir, '--dry-run'], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    const lone = join(tempDir(), 'agent.json');
    expect((await svcInProcess(['agents', 'pull', ids.support, '-o', lone], { emu })).exitCode).toBe(0);
    expect((await svcInProcess(['agents', 'push', '-f', lone, '--dry-run'], { emu })).exitCode).toBe(0);
    put(lone, { ...json(lone), voice: null });
    emu.clearRequests();
    const d = await svcInProcess(['agents', 'push', '-f', lone, '--dry-run', '--json'], { emu });
    expect(d.exitCode).toBe(1);
    expect(JSON.parse(d.stdout)).toEqual({
      agent: lone,
      files: [lone],
      agent_id: ids.support,
      state: 'changed',
      changes: [{ field: 'voice', server: { voice_id: 'ara' }, local: null }],
    });
    expect(emu.requests().every((q) => q.method === 'GET')).toBe(true);
  });
});
