// How errors look (src/cli.ts handleError): `error:` in red where colour is on (NO_COLOR honoured), on commander's
// errors too; an unknown option gets "did you mean" on its line, as an unknown command does; a refused key (401)
// adds a hint naming where the key came from.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/files.js';
import { startTestEmulator, type TestEmulator } from './helpers/emulator.js';
import { svcInProcess } from './helpers/in-process.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const RED_ERROR = '\x1b[31merror:\x1b[39m ';

describe('error: in red where colour is on', () => {
  for (const [what, args] of [
    ['a usage error of a command', ['chat', '--temperature', '9', 'hi']],
    ["commander's unknown option", ['files', 'list', '--limt', '2']],
    ["commander's missing argument", ['files', 'get']],
    ['an unknown command', ['fils']],
  ] as const) {
    it(`${what}: red on a colour terminal, plain with NO_COLOR`, async () => {
      const coloured = await svcInProcess([...args], { emu, tty: true, env: { NO_COLOR: undefined } });
      expect(coloured.exitCode).toBe(2);
      expect(coloured.stderr.startsWith(RED_ERROR), coloured.stderr).toBe(true);
      const plain = await svcInProcess([...args], { emu, tty: true, env: { NO_COLOR: '1' } });
      expect(plain.stderr).toMatch(/^error: /);
      expect(plain.stderr).not.toContain('\x1b[');
    });
  }
});

describe('an unknown option gets "did you mean", as an unknown command does', () => {
  for (const [args, want] of [
    [['files', 'list', '--limt', '2'], "error: unknown option '--limt' (did you mean --limit?)\n"],
    // a prefix, which commander's own suggestion missed in some cases, and a global option
    [['files', 'list', '--al'], "error: unknown option '--al' (did you mean --all?)\n"],
    [['files', 'list', '--verbos'], "error: unknown option '--verbos' (did you mean --verbose?)\n"],
    [['files', 'list', '--limt=2'], "error: unknown option '--limt=2' (did you mean --limit?)\n"],
    [['files', 'list', '-z'], "error: unknown option '-z'\n"],
  ] as const) {
    it(`svc ${args.join(' ')}`, async () => {
      emu.clearRequests();
      const r = await svcInProcess([...args], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toBe(`${want}(\`svc files list --help\` lists its options)\n`);
      expect(emu.requests()).toEqual([]);
    });
  }
});

describe('a refused key (401) says where it came from', () => {
  it('SVC_API_KEY', async () => {
    const r = await svcInProcess(['models', 'list'], { emu, key: 'not-a-key-the-emulator-knows' });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/^error: Incorrect API key provided/);
    expect(r.stderr).toContain(
      "hint: the key came from SVC_API_KEY (it wins over the profile's): correct or unset it; " +
        '`svc auth login` stores a new one',
    );
  });

  it("the profile's stored key, and its api_key_cmd", async () => {
    const configDir = tempDir();
    mkdirSync(configDir, { recursive: true });
    const write = (profile: Record<string, string>) =>
      writeFileSync(join(configDir, 'config.json'), JSON.stringify({ profiles: { default: profile } }));
    write({ api_key: 'stored-but-wrong' });
    const stored = await svcInProcess(['models', 'list'], { emu, key: null, configDir });
    expect(stored.exitCode).toBe(4);
    expect(stored.stderr).toContain(
      'hint: the key stored for profile default was refused: `svc auth login` stores a new one',
    );
    write({ api_key_cmd: 'echo printed-but-wrong' });
    const command = await svcInProcess(['models', 'list'], { emu, key: null, configDir });
    expect(command.stderr).toContain(
      'hint: the key came from the api_key_cmd of profile default: check what it prints',
    );
  });

  it('no hint for other errors', async () => {
    const r = await svcInProcess(['files', 'get', 'file_nope'], { emu });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).not.toContain('hint:');
  });
});
