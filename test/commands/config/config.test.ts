// config get shows what applies when unset; get/path speak JSON; use refuses an unknown profile unless --create.
import { describe, expect, it } from 'vitest';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

describe('svc config', () => {
  it('get of an unset key prints the value that applies, with a note; --json says where it comes from', async () => {
    const configDir = tempDir();
    const r = await svcInProcess(['config', 'get', 'base_url'], { configDir, env: { SVC_BASE_URL: undefined } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('https://api.svc.ai\n');
    expect(r.stderr).toContain('base_url is not set in profile default');
    const j = await svcInProcess(['config', 'get', 'timeout', '--json'], { configDir });
    expect(JSON.parse(j.stdout)).toEqual({ key: 'timeout', value: '60', source: 'default' });
    const none = await svcInProcess(['config', 'get', 'voice'], { configDir });
    expect(none.exitCode).toBe(5);
    expect(none.stderr).toContain('voice is not set in profile default, and has no default');
    await svcInProcess(['config', 'set', 'model', 'svc-4-mini'], { configDir });
    expect(JSON.parse((await svcInProcess(['config', 'get', 'model', '--json'], { configDir })).stdout)).toEqual({
      key: 'model',
      value: 'svc-4-mini',
      source: 'profile',
    });
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
