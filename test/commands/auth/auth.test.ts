import { statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { registerSecret } from '../../helpers/secrets.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('svc auth', () => {
  it('login reads the key from stdin, checks it, and stores it in a 0600 file; status and logout follow', async () => {
    const configDir = tempDir();
    const login = await svcInProcess(['auth', 'login', '--with-key', '--base-url', emu.url], {
      key: null,
      input: `${emu.key}\n`,
      configDir,
    });
    expect(login.exitCode).toBe(0);
    expect(login.stderr).toMatch(/logged in: key svc…\w{4} "test key" of team team_emulator; saved to profile default/);
    const file = join(configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.profiles.default.api_key).toBe(emu.key);
    expect(saved.profiles.default.base_url).toBe(emu.url);

    // No SVC_API_KEY and no SVC_BASE_URL: everything comes from the profile.
    const status = await svcInProcess(['auth', 'status'], { key: null, configDir, env: { SVC_BASE_URL: undefined } });
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toMatch(/key\s+svc…\w{4} \(key_\w+, from the profile\)/);
    expect(status.stdout).toMatch(/acls\s+api-key:endpoint:\*, api-key:model:\*/);

    const json = await svcInProcess(['auth', 'status', '--json'], {
      key: null,
      configDir,
      env: { SVC_BASE_URL: undefined },
    });
    expect(JSON.parse(json.stdout).api_key.team_id).toBe('team_emulator');

    const list = await svcInProcess(['config', 'list'], { key: null, configDir });
    expect(list.stdout).toMatch(/default\*\tapi_key\tsvc…\w{4}/);

    const logout = await svcInProcess(['auth', 'logout'], { key: null, configDir });
    expect(logout.exitCode).toBe(0);
    const after = await svcInProcess(['auth', 'status'], { key: null, configDir, env: { SVC_BASE_URL: undefined } });
    expect(after.exitCode).toBe(4);
    expect(after.stderr).toMatch(/no API key: run `svc auth login`/);
  });

  it('login refuses an unknown key (exit 4) and saves nothing', async () => {
    const configDir = tempDir();
    registerSecret('svc-emu-not-a-real-key-123456');
    const r = await svcInProcess(['auth', 'login'], {
      emu,
      key: null,
      input: 'svc-emu-not-a-real-key-123456\n',
      configDir,
    });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/Incorrect API key provided: svc…3456.*HTTP 400/);
    expect(() => statSync(join(configDir, 'config.json'))).toThrow();
  });

  it('login with an empty stdin is a usage error', async () => {
    const r = await svcInProcess(['auth', 'login'], { key: null, input: '' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/no API key given/);
  });

  it('the key is never accepted as an argument', async () => {
    const r = await svcInProcess(['auth', 'login', '--key', 'abc'], { key: null, input: '' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--key'/);
    const c = await svcInProcess(['config', 'set', 'api_key', 'abc']);
    expect(c.exitCode).toBe(2);
    expect(c.stderr).toMatch(/api_key: set it with `svc auth login`/);
  });

  it('status exits 4 for a blocked key, a disabled key and a blocked team, and shows the flags', async () => {
    for (const flags of [{ api_key_blocked: true }, { api_key_disabled: true }, { team_blocked: true }]) {
      const rec = emu.addKey(flags);
      registerSecret(rec.key);
      const r = await svcInProcess(['auth', 'status'], { emu, key: rec.key });
      expect(r.exitCode).toBe(4);
      expect(r.stderr).toMatch(/the API key is not usable: (blocked|disabled|team blocked)/);
      // other endpoints refuse such a key with 403 → exit 4
      const m = await svcInProcess(['models', 'list'], { emu, key: rec.key });
      expect(m.exitCode).toBe(4);
      expect(m.stderr).toMatch(/HTTP 403, permission-denied/);
    }
  });

  it('an ACL that does not cover an endpoint or a model is refused (exit 4)', async () => {
    const rec = emu.addKey({ acls: ['api-key:endpoint:models', 'api-key:model:svc-4-mini'] });
    registerSecret(rec.key);
    expect((await svcInProcess(['models', 'list'], { emu, key: rec.key })).exitCode).toBe(0);
    const chat = await svcInProcess(['chat', 'hi'], { emu, key: rec.key });
    expect(chat.exitCode).toBe(4);
    expect(chat.stderr).toMatch(/not authorized for the endpoint chat/);
    const rec2 = emu.addKey({ acls: ['api-key:endpoint:*', 'api-key:model:svc-4-mini'] });
    registerSecret(rec2.key);
    const chat2 = await svcInProcess(['chat', '-m', 'svc-4', 'hi'], { emu, key: rec2.key });
    expect(chat2.exitCode).toBe(4);
    expect(chat2.stderr).toMatch(/does not have access to model svc-4/);
    expect((await svcInProcess(['chat', '-m', 'svc-4-mini', 'hi'], { emu, key: rec2.key })).exitCode).toBe(0);
  });

  it('--verbose traces requests with the key redacted', async () => {
    const r = await svcInProcess(['models', 'get', 'svc-4', '-v'], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/> GET http:\/\/127\.0\.0\.1:\d+\/v1\/models\/svc-4/);
    expect(r.stderr).toContain('> authorization: Bearer [REDACTED]');
    expect(r.stderr).toMatch(/< 200 GET .* x-request-id [0-9a-f-]{36}/);
    // svcInProcess() itself fails the test if the key appears anywhere in stdout or stderr
  });
});

describe('svc config', () => {
  it('sets, gets, unsets and checks values; profiles are separate', async () => {
    const configDir = tempDir();
    expect((await svcInProcess(['config', 'set', 'model', 'svc-4-mini'], { configDir })).exitCode).toBe(0);
    expect((await svcInProcess(['config', 'get', 'model'], { configDir })).stdout).toBe('svc-4-mini\n');
    // another profile sets none: the value that applies there is the default, and its source is said
    const other = await svcInProcess(['config', 'get', 'model', '--profile', 'other'], { configDir });
    expect([other.exitCode, other.stdout]).toEqual([0, 'svc-latest\n']);
    expect(other.stderr).toContain('from the default');
    const bad = await svcInProcess(['config', 'set', 'timeout', '-1'], { configDir });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/timeout: -1 .*greater than 0 and at most 86400/);
    const unknown = await svcInProcess(['config', 'set', 'colour', 'red'], { configDir });
    expect(unknown.stderr).toMatch(/KEY: colour .*one of base_url, model, timeout, max_retries, voice/);
    expect((await svcInProcess(['config', 'unset', 'model'], { configDir })).exitCode).toBe(0);
    expect((await svcInProcess(['config', 'get', 'model'], { configDir })).stdout).toBe('svc-latest\n');
    expect((await svcInProcess(['config', 'path'], { configDir })).stdout).toBe(`${join(configDir, 'config.json')}\n`);
  });

  it('flag > env > profile > default for the base URL', async () => {
    const configDir = tempDir();
    await svcInProcess(['config', 'set', 'base_url', 'http://127.0.0.1:9'], { configDir });
    const fromProfile = await svcInProcess(['models', 'list', '--max-retries', '0'], {
      configDir,
      key: 'k',
      env: { SVC_BASE_URL: undefined },
    });
    expect(fromProfile.stderr).toMatch(/127\.0\.0\.1:9/);
    const fromEnv = await svcInProcess(['models', 'list'], { emu, configDir });
    expect(fromEnv.exitCode).toBe(0);
    const fromFlag = await svcInProcess(['models', 'list', '--base-url', 'http://127.0.0.1:7', '--max-retries', '0'], {
      emu,
      configDir,
    });
    expect(fromFlag.stderr).toMatch(/127\.0\.0\.1:7/);
  });
});
