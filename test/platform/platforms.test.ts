// macOS and Windows, designed in and tested here (Linux) by injecting the platform: the folders svc keeps things
// in, path handling, the signals a command listens to, how a child's process tree is stopped, colour on Windows
// terminals, and completion for PowerShell. What runs for real on Linux (a tool command's process group) is
// tested for real.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheDir, configDir, dataDir, emulatorStateDir, homedir } from '../../src/core/paths.js';
import { canRaise, ownProcessGroup, stopSignals, stopTree, type TreeKiller } from '../../src/core/signals.js';
import { colorLevel } from '../../src/term/color.js';
import { runToolCommand } from '../../src/cmdutil/local-tools.js';
import { ROOT, tempDir } from '../helpers/files.js';
import { svcInProcess } from '../helpers/in-process.js';

const folders = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform) => ({
  config: configDir(env, platform),
  data: dataDir(env, platform),
  cache: cacheDir(env, platform),
});

describe('folders per platform', () => {
  it('Linux and macOS: XDG under the home (macOS as gh and git do: ~/.config, not ~/Library)', () => {
    for (const platform of ['linux', 'darwin'] as const)
      expect(folders({ HOME: '/Users/ada' }, platform)).toEqual({
        config: '/Users/ada/.config/svc',
        data: '/Users/ada/.local/share/svc',
        cache: '/Users/ada/.cache/svc',
      });
  });

  it('Windows: %APPDATA% for the configuration, %LOCALAPPDATA% for data and cache, with backslashes', () => {
    const env = { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local' };
    expect(folders(env, 'win32')).toEqual({
      config: 'C:\\Users\\ada\\AppData\\Roaming\\svc',
      data: 'C:\\Users\\ada\\AppData\\Local\\svc',
      cache: 'C:\\Users\\ada\\AppData\\Local\\svc\\cache',
    });
  });

  it('Windows without %APPDATA%: under %USERPROFILE% (HOME first, as node:os reads it)', () => {
    expect(folders({ USERPROFILE: 'D:\\home\\ada' }, 'win32')).toEqual({
      config: 'D:\\home\\ada\\AppData\\Roaming\\svc',
      data: 'D:\\home\\ada\\AppData\\Local\\svc',
      cache: 'D:\\home\\ada\\AppData\\Local\\svc\\cache',
    });
    expect(homedir({ HOME: 'E:\\ada', USERPROFILE: 'D:\\home\\ada' }, 'win32')).toBe('E:\\ada');
    // on POSIX USERPROFILE means nothing
    expect(homedir({ HOME: '/home/ada', USERPROFILE: 'D:\\x' }, 'linux')).toBe('/home/ada');
  });

  it('the XDG variables win on every platform, svc’s own over them', () => {
    const env = { XDG_CONFIG_HOME: 'C:\\xdg\\config', XDG_DATA_HOME: 'C:\\xdg\\data', APPDATA: 'C:\\roaming' };
    expect(configDir(env, 'win32')).toBe('C:\\xdg\\config\\svc');
    expect(dataDir(env, 'win32')).toBe('C:\\xdg\\data\\svc');
    expect(configDir({ ...env, SVC_CONFIG_DIR: 'C:\\mine' }, 'win32')).toBe('C:\\mine');
    expect(configDir({ HOME: '/h', XDG_CONFIG_HOME: '/x' }, 'darwin')).toBe('/x/svc');
    expect(cacheDir({ HOME: '/h', SVC_CACHE_DIR: '/c' }, 'darwin')).toBe('/c');
  });

  it('the CLI uses them: `svc config path` names the configuration file in the folder of this platform', async () => {
    const home = tempDir();
    const r = await svcInProcess(['config', 'path'], { env: { HOME: home, SVC_CONFIG_DIR: undefined } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().startsWith(join(home, '.config', 'svc'))).toBe(true);
    expect(emulatorStateDir({ HOME: home })).toBe(join(home, '.local', 'share', 'svc', 'emulator'));
  });
});

describe('signals per platform', () => {
  it('POSIX: SIGTERM and SIGHUP stop a command (143, 129); a process can die of SIGHUP', () => {
    for (const platform of ['linux', 'darwin'] as const) {
      expect(stopSignals(platform)).toEqual([
        { signal: 'SIGTERM', exit: 143 },
        { signal: 'SIGHUP', exit: 129 },
      ]);
      expect(canRaise('SIGHUP', platform)).toBe(true);
    }
  });

  it('Windows: no SIGTERM to listen for; Ctrl-Break (SIGBREAK) interrupts, a closed console (SIGHUP) hangs up', () => {
    expect(stopSignals('win32')).toEqual([
      { signal: 'SIGBREAK', exit: 130 },
      { signal: 'SIGHUP', exit: 129 },
    ]);
    // process.kill on Windows sends only these: the temp-file hook exits 129 instead of re-raising SIGHUP
    expect(
      ['SIGHUP', 'SIGBREAK', 'SIGINT', 'SIGTERM', 'SIGKILL'].filter((s) => canRaise(s as NodeJS.Signals, 'win32')),
    ).toEqual(['SIGINT', 'SIGTERM', 'SIGKILL']);
  });
});

describe('process trees per platform (--tool-cmd, api_key_cmd)', () => {
  const recorder = () => {
    const calls: unknown[][] = [];
    const killer: TreeKiller = {
      kill: (pid, signal) => void calls.push(['kill', pid, signal]),
      run: (file, args) => void calls.push(['run', file, args]),
    };
    return { calls, killer };
  };

  it('POSIX: the child has a group of its own, and the group is signalled', () => {
    const { calls, killer } = recorder();
    stopTree(4242, 'SIGTERM', 'darwin', killer);
    expect(calls).toEqual([['kill', -4242, 'SIGTERM']]);
    expect(ownProcessGroup('darwin')).toBe(true);
  });

  it('Windows: no process group (a detached child gets a console); the tree ends with taskkill /T /F', () => {
    const { calls, killer } = recorder();
    stopTree(4242, 'SIGTERM', 'win32', killer);
    expect(calls).toEqual([['run', 'taskkill', ['/PID', '4242', '/T', '/F']]]);
    expect(ownProcessGroup('win32')).toBe(false);
  });

  it('a tree already gone is no error', () => {
    const killer: TreeKiller = {
      kill: () => {
        throw Object.assign(new Error('no such process'), { code: 'ESRCH' });
      },
      run: () => {},
    };
    expect(() => stopTree(1, 'SIGKILL', 'linux', killer)).not.toThrow();
  });

  // a POSIX shell and ps: on Windows (CI's portable run) this one is not collected, and says so
  if (process.platform === 'win32')
    console.log('not collected on Windows: a tool command’s tree ended for real (sh, ps)');
  else
    it('for real (POSIX): a timed-out tool command ends with everything it started', async () => {
      const dir = tempDir();
      const pidFile = join(dir, 'grandchild.pid');
      const r = await runToolCommand(`sh -c 'sleep 300 & echo $! > ${pidFile}; wait'`, '{}', { timeoutMs: 300 });
      expect(JSON.parse(r).error).toBe('the tool command timed out after 300 ms');
      // the answer came, so the pipe the grandchild held is closed: it has exited (gone, or a zombie not yet reaped)
      const pid = Number(readFileSync(pidFile, 'utf8'));
      let state = '';
      try {
        state = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
      } catch {
        // ps exits 1: no such process
      }
      expect(state === '' || state.startsWith('Z')).toBe(true);
    });
});

describe('colour on Windows terminals', () => {
  it('Windows Terminal (WT_SESSION) gets 24-bit colour; the console 16; TERM decides elsewhere', () => {
    expect(colorLevel({ WT_SESSION: 'b7d3' }, 'win32')).toBe(3);
    expect(colorLevel({}, 'win32')).toBe(1);
    expect(colorLevel({ WT_SESSION: 'b7d3' }, 'linux')).toBe(1);
    expect(colorLevel({ TERM: 'xterm-256color' }, 'darwin')).toBe(2);
    expect(colorLevel({ FORCE_COLOR: '2', WT_SESSION: 'x' }, 'win32')).toBe(2);
  });
});

describe('completion for PowerShell', () => {
  it('`svc completion powershell` prints completions/svc.ps1: a native argument completer of svc', async () => {
    const r = await svcInProcess(['completion', 'powershell']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(ROOT, 'completions/svc.ps1'), 'utf8'));
    expect(r.stdout).toContain('Register-ArgumentCompleter -Native -CommandName svc, svc.cmd, svc.ps1 -ScriptBlock {');
    expect(r.stdout).toContain("'models' = @('get', 'list', 'ls')");
    expect(r.stdout).toContain('& $exe __complete $kind @rest');
  });

  it('its tables are valid PowerShell: no key twice (hash literals are case-insensitive), quotes closed', async () => {
    const script = (await svcInProcess(['completion', 'powershell'])).stdout;
    const tables = [...script.matchAll(/\$(\w+) = @\{\n([\s\S]*?)\n {2}\}/g)];
    expect(tables.map((m) => m[1])).toEqual([
      'subs',
      'subdesc',
      'canon',
      'flags',
      'valued',
      'choices',
      'dyn',
      'argvals',
      'argdyn',
    ]);
    for (const [, name, body] of tables) {
      const keys = body!.split('\n').map((line) => /^ {4}'((?:[^']|'')*)' = /.exec(line)?.[1]);
      expect(
        keys.filter((k) => k === undefined),
        name,
      ).toEqual([]);
      const lower = keys.map((k) => k!.toLowerCase());
      expect(
        lower.filter((k, i) => lower.indexOf(k) !== i),
        name,
      ).toEqual([]);
      // every line's single quotes pair up once doubled quotes are taken out
      for (const line of body!.split('\n')) expect(line.replace(/''/g, '').split("'").length % 2, line).toBe(1);
    }
  });
});

describe('a leading ~ where no shell expanded it', () => {
  it('is the home, for the folders and the certificate settings, on each platform', async () => {
    const { expandHome, configDir, cacheDir } = await import('../../src/core/paths.js');
    expect(expandHome('~/certs/ca.pem', { HOME: '/home/u' }, 'linux')).toBe('/home/u/certs/ca.pem');
    expect(expandHome('~', { HOME: '/home/u' }, 'darwin')).toBe('/home/u');
    expect(expandHome('~\\certs\\ca.pem', { USERPROFILE: 'C:\\Users\\u' }, 'win32')).toBe(
      'C:\\Users\\u\\certs\\ca.pem',
    );
    // ~user, a ~ inside a path and an absolute path are left as they are
    expect(expandHome('~other/x', { HOME: '/home/u' }, 'linux')).toBe('~other/x');
    expect(expandHome('/etc/~/x', { HOME: '/home/u' }, 'linux')).toBe('/etc/~/x');
    expect(configDir({ HOME: '/home/u', SVC_CONFIG_DIR: '~/svc-config' }, 'linux')).toBe('/home/u/svc-config');
    expect(cacheDir({ HOME: '/home/u', XDG_CACHE_HOME: '~/.c' }, 'darwin')).toBe('/home/u/.c/svc');
  });

  it('in SVC_CA_CERT: the certificate below the home is read (a missing one is named with its full path)', async () => {
    const { svcInProcess } = await import('../helpers/in-process.js');
    const home = tempDir('svc-home-');
    const r = await svcInProcess(['models', 'list', '--base-url', 'https://127.0.0.1:9'], {
      key: 'k',
      env: { HOME: home, SVC_CA_CERT: '~/missing-ca.pem' },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`cannot read ${home}/missing-ca.pem`);
  });
});
