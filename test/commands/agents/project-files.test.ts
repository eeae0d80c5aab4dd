// Issue 36 item 6: a project file (svc-agents.json, often from a cloned repository) names the agent files; each stays
// inside the project folder, symbolic links included (what was opened is checked), for `agents push`, `status` and
// `pull --all` alike, and no error quotes a file's content.
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';

let emu: TestEmulator;
let agentId: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  const made = await svcInProcess(['agents', 'create', '--name', 'remote', '--json'], { emu });
  expect(made.exitCode, made.stderr).toBe(0);
  agentId = JSON.parse(made.stdout).agent_id;
});
afterAll(() => emu.close());

const VICTIM = { note: 'the user’s own file, outside the project', token: 'victim-content-7f3a' };

/** A folder holding a victim file and, beside it, a project whose svc-agents.json lists `agents`. */
function layout(agents: Record<string, unknown>) {
  const root = tempDir();
  const victim = join(root, 'victim.json');
  writeFileSync(victim, JSON.stringify(VICTIM));
  const dir = join(root, 'cloned', 'repo');
  mkdirSync(join(dir, 'agents'), { recursive: true });
  writeFileSync(join(dir, 'svc-agents.json'), JSON.stringify({ environments: ['default'], agents }));
  return { root, dir, victim };
}

const writes = () => emu.requests().filter((r) => r.method !== 'GET');

describe('agent files named by a project file stay inside the project', () => {
  it('"file": "../../victim.json" is refused by push, status, pull --all; nothing written', async () => {
    const { dir, victim } = layout({ evil: { file: '../../victim.json', ids: { default: agentId } } });
    for (const args of [
      ['agents', 'push', dir],
      ['agents', 'status', dir],
      ['agents', 'pull', '--all', '--project', dir],
    ]) {
      emu.clearRequests();
      const r = await svcInProcess(args, { emu });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(
        'svc-agents.json: agents.evil.file: "../../victim.json" is not allowed: a path relative to the project folder',
      );
      expect(r.stderr).not.toContain('victim-content');
      expect(writes()).toEqual([]);
    }
    expect(JSON.parse(readFileSync(victim, 'utf8'))).toEqual(VICTIM);
    const absolute = layout({ evil: { file: victim, ids: {} } });
    const r = await svcInProcess(['agents', 'push', absolute.dir], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('agents.evil.file');
  });

  it('an agent file that is a symbolic link out of the project is neither read nor sent', async () => {
    const { dir, victim } = layout({ evil: { file: 'agents/evil.json', ids: {} } });
    writeFileSync(victim, JSON.stringify({ name: 'victim-content-7f3a', instructions: 'victim-content-7f3a' }));
    symlinkSync(victim, join(dir, 'agents', 'evil.json'));
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', dir], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /agents\/evil\.json is not allowed: it leads outside the project folder .* \(to .*victim\.json/,
    );
    expect(r.stderr).not.toContain('victim-content');
    expect(writes()).toEqual([]);
  });

  it('pull --all does not write through a linked agents folder into another folder', async () => {
    const { root, dir } = layout({ remote: { file: 'agents/remote.json', ids: { default: agentId } } });
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    const target = join(elsewhere, 'remote.json');
    writeFileSync(target, JSON.stringify(VICTIM));
    // agents/ replaced by a link to a folder outside the project
    const linked = join(dir, 'agents');
    rmSync(linked, { recursive: true });
    symlinkSync(elsewhere, linked);
    const r = await svcInProcess(['agents', 'pull', '--all', '--project', dir], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/agents\/remote\.json is not allowed: it leads outside the project folder/);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toEqual(VICTIM);
  });

  it('a file that is not JSON is named with where it stops, never with its bytes', async () => {
    const { dir } = layout({ notes: { file: 'agents/notes.json', ids: {} } });
    writeFileSync(join(dir, 'agents', 'notes.json'), 'PRIVATE-KEY-abc123 line one\nsecond line');
    emu.clearRequests();
    const r = await svcInProcess(['agents', 'push', dir], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /agents\/notes\.json is not valid JSON \((at line \d+, column \d+|it cannot be read as JSON)\)/,
    );
    expect(r.stderr).not.toContain('PRIVATE-KEY');
    // the same for a file given with -f
    const lone = join(tempDir(), 'lone.json');
    writeFileSync(lone, '{"name": "x", PRIVATE-KEY-abc123}');
    const f = await svcInProcess(['agents', 'push', '-f', lone], { emu });
    expect(f.exitCode).toBe(2);
    expect(f.stderr).toMatch(/lone\.json is not valid JSON \((at line \d+, column \d+|it cannot be read as JSON)\)/);
    expect(f.stderr).not.toContain('PRIVATE-KEY');
    expect(writes()).toEqual([]);
  });
});
