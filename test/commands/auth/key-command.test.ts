// api_key_cmd: the key comes from a command of the user's (a password manager), run without a shell and without
// stdin; its failure is exit 4 with what went wrong, and what it printed appears in no output.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../../helpers/in-process.js';
import { registerSecret } from '../../helpers/secrets.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
const dir = tempDir();
const configDir = join(dir, 'config');
const LEAK = 'sk-printed-by-a-failing-command-0123456789';
registerSecret(LEAK);

function script(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

beforeAll(async () => {
  emu = await startTestEmulator();
  const set = await svcInProcess(['config', 'set', 'base_url', emu.url], { configDir, key: null });
  expect(set.exitCode, set.stderr).toBe(0);
});
afterAll(() => emu.close());

const run = (args: string[], env: Record<string, string> = {}) =>
  svcInProcess(args, { configDir, key: null, env, emu: undefined });

describe('api_key_cmd', () => {
  it('the key printed by the command (first line, trimmed) authenticates the request, and never shows', async () => {
    const marker = join(dir, 'ran');
    const cmd = script(
      'key.sh',
      `printf '%s\\n' "$@" > ${marker}\n[ -t 0 ] && echo "stdin is a terminal" >&2\nread -r x && echo "stdin ` +
        `was readable" >> ${marker}\necho "  ${emu.key}  "\necho "url: https://example.invalid"`,
    );
    expect((await run(['config', 'set', 'api_key_cmd', `${cmd} 'two words' "x\\"y" $HOME`])).exitCode).toBe(0);
    emu.clearRequests();
    const r = await svcInProcess(['models', 'list', '-v'], { configDir, key: null, input: 'data meant for svc\n' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('svc-4');
    expect(r.stderr).toContain('authorization: Bearer [REDACTED]');
    // no shell: quotes group words, nothing expands; no stdin for the command
    expect(readFileSync(marker, 'utf8')).toBe('two words\nx"y\n$HOME\n');
    expect(emu.requests().at(-1)!.path).toBe('/v1/models'); // answered 200: the command's key was accepted
    const status = await run(['auth', 'status']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain('from api_key_cmd');
  });

  it('SVC_API_KEY wins: the command is not run', async () => {
    const marker = join(dir, 'not-run');
    const cmd = script('key2.sh', `touch ${marker}; echo nothing`);
    expect((await run(['config', 'set', 'api_key_cmd', cmd])).exitCode).toBe(0);
    const r = await svcInProcess(['models', 'list'], { configDir, key: emu.key });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });

  it('a failing command is exit 4 with its status and stderr, and nothing it printed on stdout', async () => {
    const cmd = script('fail.sh', `echo ${LEAK}\necho "vault is locked" >&2\nexit 3`);
    expect((await run(['config', 'set', 'api_key_cmd', cmd])).exitCode).toBe(0);
    emu.clearRequests();
    const r = await run(['models', 'list']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/api_key_cmd ".*fail\.sh" \(profile default\) failed \(exit 3\): vault is locked/);
    expect(r.stdout + r.stderr).not.toContain(LEAK); // the helper's scan checks it too
    expect(emu.requests()).toEqual([]);
    for (const [line, why] of [
      ['no-such-command-here', 'not found (is it installed and on PATH?)'],
      [script('empty.sh', 'echo'), 'printed no key'],
      [script('words.sh', 'echo two words'), 'printed something that is not a key'],
      [script('wrong.sh', 'echo svc-not-a-key-of-this-emulator'), 'API key'],
    ]) {
      expect((await run(['config', 'set', 'api_key_cmd', line!])).exitCode).toBe(0);
      const f = await run(['models', 'list']);
      expect(f.exitCode).toBe(4);
      expect(f.stderr).toContain(why);
    }
  });

  it('the emulator admin commands need no key: api_key_cmd is not run (issue 25, item 24)', async () => {
    const marker = join(dir, 'admin-ran');
    const cmd = script('admin-key.sh', `touch ${marker}; echo ${emu.key}`);
    expect((await run(['config', 'set', 'api_key_cmd', cmd])).exitCode).toBe(0);
    for (const args of [
      ['emulator', 'requests'],
      ['emulator', 'fault', 'list'],
      ['emulator', 'fault', 'clear'],
    ]) {
      const r = await run(args);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(existsSync(marker), args.join(' ')).toBe(false);
    }
    // a command that sends the key still runs it
    expect((await run(['models', 'list'])).exitCode).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it('config set refuses a command line with an open quote (exit 2)', async () => {
    const r = await run(['config', 'set', 'api_key_cmd', "pass show 'svc/key"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('api_key_cmd');
  });
});
