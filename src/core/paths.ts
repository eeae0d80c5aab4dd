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

/** Windows' roaming (%APPDATA%) or local (%LOCALAPPDATA%) application data, under the home when unset. */
function windowsAppData(env: NodeJS.ProcessEnv, kind: 'APPDATA' | 'LOCALAPPDATA'): string {
  return readEnv(env, kind) || win32.join(homedir(env, 'win32'), 'AppData', kind === 'APPDATA' ? 'Roaming' : 'Local');
}

export function configDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const path = pathRules(platform);
  const own = readEnv(env, 'SVC_CONFIG_DIR');
  if (own) return own;
  const xdg = readEnv(env, 'XDG_CONFIG_HOME');
  if (xdg) return path.join(xdg, 'svc');
  if (platform === 'win32') return path.join(windowsAppData(env, 'APPDATA'), 'svc');
  return path.join(homedir(env, platform), '.config', 'svc');
}

export function dataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const path = pathRules(platform);
  const own = readEnv(env, 'SVC_DATA_DIR');
  if (own) return own;
  const xdg = readEnv(env, 'XDG_DATA_HOME');
  if (xdg) return path.join(xdg, 'svc');
  if (platform === 'win32') return path.join(windowsAppData(env, 'LOCALAPPDATA'), 'svc');
  return path.join(homedir(env, platform), '.local', 'share', 'svc');
}

/** The cache (shell completion's ids; bin/svc.cjs keeps V8's code cache by the same rule, written out there). */
export function cacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const path = pathRules(platform);
  const own = readEnv(env, 'SVC_CACHE_DIR');
  if (own) return own;
  const xdg = readEnv(env, 'XDG_CACHE_HOME');
  if (xdg) return path.join(xdg, 'svc');
  if (platform === 'win32') return path.join(windowsAppData(env, 'LOCALAPPDATA'), 'svc', 'cache');
  return path.join(homedir(env, platform), '.cache', 'svc');
}

/** State of the emulator started by `--emulator` (persisted between invocations). */
export function emulatorStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return readEnv(env, 'SVC_EMULATOR_STATE_DIR') || pathRules().join(dataDir(env), 'emulator');
}
