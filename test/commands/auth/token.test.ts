// svc auth token: the key in use, from the environment, api_key_cmd or the stored profile, printed into a pipe, on a
// terminal only with --show; nothing sent to the API. The keys here are made up (no emulator knows them), so the
// suite's scan for leaked keys does not apply to them: printing them is the point.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcOnTerminal } from '../../helpers/terminal.js';
import { tempDir } from '../../helpers/files.js';
import { svcShell } from '../../helpers/subprocess.js';

const ENV_KEY = 'made-up-key-from-env-0001';
const CMD_KEY = 'made-up-key-from-cmd-0002';
const STORED_KEY = 'made-up-key-stored-0003';

/** A config dir whose default profile holds `values` (as `svc auth login` / `svc config set` write them). */
function configWith(values: Record<string, string>): string {
  const dir = tempDir('svc-token-');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: values } }), { mode: 0o600 });
  return dir;
}

describe.concurrent('svc auth token', () => {
  it('prints the key of SVC_API_KEY into a pipe; --json says where it came from', async () => {
    const r = await svcInProcess(['auth', 'token'], { key: ENV_KEY });
    expect(r).toMatchObject({ exitCode: 0, stdout: `${ENV_KEY}\n`, stderr: '' });
    const j = await svcInProcess(['auth', 'token', '--json'], { key: ENV_KEY });
    expect(JSON.parse(j.stdout)).toEqual({ api_key: ENV_KEY, source: 'env', profile: 'default' });
  });

  it('runs api_key_cmd for the key', async () => {
    const dir = tempDir('svc-token-cmd-');
    const script = join(dir, 'key.sh');
    writeFileSync(script, `#!/bin/sh\necho "  ${CMD_KEY}  "\n`);
    chmodSync(script, 0o755);
    const r = await svcInProcess(['auth', 'token', '--json'], {
      key: null,
      configDir: configWith({ api_key_cmd: script }),
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ api_key: CMD_KEY, source: 'command', profile: 'default' });
  });

  it('prints the stored key, in a shell pipeline as a script uses it', async () => {
    const configDir = configWith({ api_key: STORED_KEY });
    const r = await svcShell('printf "Bearer %s" "$(svc auth token)"', { key: null, configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Bearer ${STORED_KEY}`);
  });

  it('without a key: exit 4 naming what to do', async () => {
    const r = await svcInProcess(['auth', 'token'], { key: null });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('no API key');
    expect(r.stdout).toBe('');
  });

  it('on a terminal: refused (exit 2) unless --show', async () => {
    const refused = await svcOnTerminal(['auth', 'token'], { key: ENV_KEY });
    expect(refused.exitCode).toBe(2);
    expect(refused.screen).toContain('stdout is a terminal');
    expect(refused.screen).not.toContain(ENV_KEY);
    const shown = await svcOnTerminal(['auth', 'token', '--show'], { key: ENV_KEY });
    expect(shown.exitCode).toBe(0);
    expect(shown.screen).toContain(ENV_KEY);
  });
});
