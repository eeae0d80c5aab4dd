// The launcher and the command tree: --version, help, usage errors, pipes, NO_COLOR.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, startTestEmulator, svc, svcEnv, tempDir, type TestEmulator } from './helpers/cli.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('svc --version', () => {
  it('prints the package version and imports no command module (nor the CLI itself)', async () => {
    const trace = join(tempDir(), 'imports.txt');
    const r = await execa('node', ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs'), BIN, '--version'], {
      env: { ...process.env, SVC_TRACE_IMPORTS: trace },
      reject: false,
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    const loaded = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    expect(loaded.some((u) => u.endsWith('/bin/svc.cjs'))).toBe(true);
    expect(loaded.filter((u) => u.includes('/dist/'))).toEqual([]);
    expect(loaded.filter((u) => u.includes('/node_modules/'))).toEqual([]);
  });

  it('svc --help loads no command module', async () => {
    const trace = join(tempDir(), 'imports.txt');
    const r = await execa('node', ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs'), BIN, '--help'], {
      env: { ...process.env, SVC_TRACE_IMPORTS: trace },
      reject: false,
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/Usage: svc \[options\] \[command\]/);
    const loaded = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    // group indexes are fine; verb modules (src/commands/<group>/<verb>.js other than index) are not
    const verbs = loaded.filter((u) => /\/dist\/commands\/[^/]+\/(?!index\.js)[^/]+\.js$/.test(u));
    expect(verbs).toEqual([]);
    expect(loaded.filter((u) => /node_modules\/(undici|conf|ora|ws|execa)\//.test(u))).toEqual([]);
  });
});

describe('the command tree', () => {
  it('an unknown command or option is a usage error (exit 2) with a suggestion', async () => {
    const r = await svc(['modles']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'modles'/);
    expect(r.stderr).toMatch(/Did you mean models\?/);
    const o = await svc(['models', 'list', '--kindd', 'x']);
    expect(o.exitCode).toBe(2);
    expect(o.stderr).toMatch(/unknown option '--kindd'/);
  });

  it('a group without a verb shows its help on stderr and exits 2', async () => {
    const r = await svc(['models']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Usage: svc models/);
    expect(r.stderr).toMatch(/list\|ls/);
  });

  it('help of a command lists its flags, the global options and examples', async () => {
    const r = await svc(['chat', '--help']);
    expect(r.exitCode).toBe(0);
    for (const flag of ['--temperature', '--schema', '--deferred', '--json', '--emulator', 'Examples:']) expect(r.stdout).toContain(flag);
  });

  it('a closed pipe is not an error: `svc models list | head -1` exits 0 quietly', async () => {
    const r = await execa('bash', ['-o', 'pipefail', '-c', `node ${BIN} models list --kind language | head -1`], { env: svcEnv({ emu }), extendEnv: false, reject: false });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(1);
    expect(r.stderr).toBe('');
  });

  it('NO_COLOR keeps ANSI codes out even when colour is forced by a terminal-like setting', async () => {
    const coloured = await svc(['models', 'get', 'nope'], { emu, env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
    const plain = await svc(['models', 'get', 'nope'], { emu, env: { NO_COLOR: '1', FORCE_COLOR: undefined } });
    expect(plain.stderr).not.toMatch(/\u001b\[/);
    expect(plain.stderr).toMatch(/^error: /);
    expect(coloured.exitCode).toBe(5);
  });
});
