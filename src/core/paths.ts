// Where svc keeps things, by the platform's conventions, each overridable by an environment variable:
// - Linux and the other Unixes, and macOS: XDG (~/.config/svc, ~/.local/share/svc, ~/.cache/svc), as gh, git and
//   npm do on macOS too: a command-line tool's files where its users look for them and edit them, not ~/Library;
// - Windows: %APPDATA%\svc for the configuration (it roams with the user), %LOCALAPPDATA%\svc for data (the call
//   log, conversations, the emulator's state: this machine's) and %LOCALAPPDATA%\svc\cache;
// - the XDG variables win wherever they are set (a Windows user with an XDG setup keeps it), SVC_*_DIR over all.
// Paths are joined with the platform's separator (node:path's win32 or posix rules), so that a test can ask for
// another platform's folders (the `platform` parameter) and get what that platform would.
import { posix, win32 } from 'node:path';
import { readEnv } from './environment.js';

/** node:path's rules for a platform: backslashes and drive letters on Windows, slashes elsewhere. */
export function pathRules(platform: NodeJS.Platform = process.platform): typeof posix {
  return platform === 'win32' ? win32 : posix;
}

/**
 * The user's home: $HOME as node:os's homedir() reads it first (%USERPROFILE% on Windows), node:os (~0.15 ms to
 * load) only without it.
 */
export function homedir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  return (
    readEnv(env, 'HOME') ||
    (platform === 'win32' ? readEnv(env, 'USERPROFILE') : undefined) ||
    process.getBuiltinModule('node:os').homedir()
  );
}

/**
 * A path the user wrote where no shell expands it (a config value, a quoted variable): a leading `~` is the home,
 * `~/x` (and `~\\x` on Windows) below it. `~user` and a `~` elsewhere are left as they are.
 */
export function expandHome(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const sep = platform === 'win32' ? /^~[\\/]/ : /^~\//;
  if (path !== '~' && !sep.test(path)) return path;
  return pathRules(platform).join(homedir(env, platform), path.slice(2));
}

/** Windows' roaming (%APPDATA%) or local (%LOCALAPPDATA%) application data, under the home when unset. */
function windowsAppData(env: NodeJS.ProcessEnv, kind: 'APPDATA' | 'LOCALAPPDATA'): string {
  return readEnv(env, kind) || win32.join(homedir(env, 'win32'), 'AppData', kind === 'APPDATA' ? 'Roaming' : 'Local');
}

/** One of svc's folders: its own variable, else the XDG one, else the platform's default. */
function folder(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  vars: ['SVC_CONFIG_DIR' | 'SVC_DATA_DIR' | 'SVC_CACHE_DIR', 'XDG_CONFIG_HOME' | 'XDG_DATA_HOME' | 'XDG_CACHE_HOME'],
  windows: ['APPDATA' | 'LOCALAPPDATA', ...string[]],
  unix: string[],
): string {
  const path = pathRules(platform);
  const xdg = readEnv(env, vars[1]);
  const own = readEnv(env, vars[0]);
  if (own) return expandHome(own, env, platform);
  if (xdg) return path.join(expandHome(xdg, env, platform), 'svc');
  if (platform === 'win32') return path.join(windowsAppData(env, windows[0]), 'svc', ...windows.slice(1));
  return path.join(homedir(env, platform), ...unix, 'svc');
}

export function configDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  return folder(env, platform, ['SVC_CONFIG_DIR', 'XDG_CONFIG_HOME'], ['APPDATA'], ['.config']);
}

export function dataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  return folder(env, platform, ['SVC_DATA_DIR', 'XDG_DATA_HOME'], ['LOCALAPPDATA'], ['.local', 'share']);
}

/**
 * Where `svc completion man --install` puts the pages by default: section 1 of the user's own man tree under the XDG
 * data home (~/.local/share/man/man1), which man-db and macOS's man search when ~/.local/bin is on PATH. None on
 * Windows: no man there.
 */
export function userManDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (platform === 'win32') return undefined;
  const xdg = readEnv(env, 'XDG_DATA_HOME');
  const path = pathRules(platform);
  return path.join(
    xdg ? expandHome(xdg, env, platform) : path.join(homedir(env, platform), '.local', 'share'),
    'man',
    'man1',
  );
}

/** The cache (shell completion's ids; bin/svc.cjs keeps V8's code cache by the same rule, written out there). */
export function cacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  return folder(env, platform, ['SVC_CACHE_DIR', 'XDG_CACHE_HOME'], ['LOCALAPPDATA', 'cache'], ['.cache']);
}

/** State of the emulator started by `--emulator` (persisted between invocations). */
export function emulatorStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return readEnv(env, 'SVC_EMULATOR_STATE_DIR') || pathRules().join(dataDir(env), 'emulator');
}
