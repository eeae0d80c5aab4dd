// config get shows what applies when unset; get/path speak JSON; use refuses an unknown profile unless --create.
import { describe, expect, it } from 'vitest';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';
import { readApiDocument } from '../../helpers/api-document.js';

describe('svc config', () => {
  it('get of an unset key prints the value that applies, with a note; --json says where it comes from', async () => {
    const configDir = tempDir();
    const r = await svcInProcess(['config', 'get', 'base_url'], { configDir, env: { SVC_BASE_URL: undefined } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('https://api.svc.ai\n');
    expect(r.stderr).toContain('note: from the default, not profile default; default: https://api.svc.ai');
    const j = await svcInProcess(['config', 'get', 'timeout', '--json'], { configDir });
    expect(JSON.parse(j.stdout)).toEqual({ key: 'timeout', value: '60', source: 'default', default: '60' });
    const none = await svcInProcess(['config', 'get', 'budget.daily'], { configDir });
    expect(none.exitCode).toBe(5);
    expect(none.stderr).toContain('budget.daily is not set in profile default, and has no default');
    await svcInProcess(['config', 'set', 'model', 'svc-4-mini'], { configDir });
    expect(JSON.parse((await svcInProcess(['config', 'get', 'model', '--json'], { configDir })).stdout)).toEqual({
      key: 'model',
      value: 'svc-4-mini',
      source: 'profile',
      default: 'svc-latest',
    });
  });

  it('get of model, voice and the log keys prints the default that applies (issue 37 item 16)', async () => {
    const configDir = tempDir();
    const env = { SVC_MODEL: undefined };
    for (const [key, value] of [
      ['model', 'svc-latest'],
      ['voice', 'eve'],
      ['log', 'true'],
      ['log.retention_days', '30'],
    ]) {
      const r = await svcInProcess(['config', 'get', key], { configDir, env });
      expect(r.exitCode, `${key}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toBe(`${value}\n`);
      expect(r.stderr).toContain(`note: from the default, not profile default; default: ${value}`);
      const j = await svcInProcess(['config', 'get', key, '--json'], { configDir, env });
      expect(JSON.parse(j.stdout)).toEqual({ key, value, source: 'default', default: value });
    }
    // the defaults said are the ones that apply: chat's help and the API document's voice
    const help = await svcInProcess(['chat', '--help'], { configDir });
    expect(help.stdout).toMatch(/else svc-latest\)/);
    expect(JSON.stringify(readApiDocument())).toContain('"voice_id":{"type":"string","default":"eve"}');
  });

  it('get says where a value came from: environment over profile over default (issue 25, item 19)', async () => {
    const configDir = tempDir();
    await svcInProcess(['config', 'set', 'timeout', '30'], { configDir });
    const fromProfile = await svcInProcess(['config', 'get', 'timeout'], {
      configDir,
      env: { SVC_TIMEOUT: undefined },
    });
    expect(fromProfile.stdout).toBe('30\n');
    expect(fromProfile.stderr).toContain('note: from profile default; default: 60');
    const fromEnv = await svcInProcess(['config', 'get', 'timeout', '--json'], {
      configDir,
      env: { SVC_TIMEOUT: '5' },
    });
    expect(JSON.parse(fromEnv.stdout)).toEqual({ key: 'timeout', value: '5', source: 'environment', default: '60' });
    const text = await svcInProcess(['config', 'get', 'timeout'], { configDir, env: { SVC_TIMEOUT: '5' } });
    expect(text.stderr).toContain('note: from the environment (SVC_TIMEOUT), not profile default; default: 60');
  });

  it('use NAME --create persists the profile: the next use finds it (issue 25, item 19)', async () => {
    const configDir = tempDir();
    expect((await svcInProcess(['config', 'use', 'fresh', '--create'], { configDir })).exitCode).toBe(0);
    expect((await svcInProcess(['config', 'use', 'default'], { configDir })).exitCode).toBe(0);
    const again = await svcInProcess(['config', 'use', 'fresh'], { configDir });
    expect(again.exitCode, again.stderr).toBe(0);
  });

  it('reserved names (__proto__, constructor) are refused as profiles everywhere (issue 25, item 19)', async () => {
    const configDir = tempDir();
    for (const args of [
      ['config', 'use', '__proto__', '--create'],
      ['config', 'set', 'model', 'svc-4', '--profile', 'constructor'],
      ['config', 'get', 'model', '--profile', '__proto__'],
    ]) {
      const r = await svcInProcess(args, { configDir });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/(PROFILE|--profile): "(__proto__|constructor)" is not allowed/);
    }
  });

  it('a typo in --profile or SVC_PROFILE says the profile does not exist, with a suggestion', async () => {
    const configDir = tempDir();
    await svcInProcess(['config', 'set', 'model', 'svc-4', '--profile', 'work'], { configDir });
    const r = await svcInProcess(['models', 'list', '--profile', 'wrok'], { configDir, key: null });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--profile: profile wrok does not exist (did you mean work?); profiles: work');
    const e = await svcInProcess(['models', 'list'], { configDir, key: null, env: { SVC_PROFILE: 'wokr' } });
    expect(e.exitCode).toBe(2);
    expect(e.stderr).toContain('SVC_PROFILE: profile wokr does not exist (did you mean work?)');
  });

  it('path --json', async () => {
    const configDir = tempDir();
    expect(JSON.parse((await svcInProcess(['config', 'path', '--json'], { configDir })).stdout)).toEqual({
      path: `${configDir}/config.json`,
    });
  });

  it('use refuses an unknown profile (exit 2, with a suggestion) unless --create', async () => {
    const configDir = tempDir();
    await svcInProcess(['config', 'set', 'model', 'svc-4', '--profile', 'work'], { configDir });
    const r = await svcInProcess(['config', 'use', 'wrok'], { configDir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('PROFILE: wrok does not exist (did you mean work?)');
    expect((await svcInProcess(['config', 'use', 'work'], { configDir })).exitCode).toBe(0);
    expect((await svcInProcess(['config', 'use', 'fresh', '--create'], { configDir })).exitCode).toBe(0);
  });
});
