// Where svc keeps things: XDG locations, each overridable by an environment variable.
import { join } from 'node:path';
import { readEnv } from './environment.js';

/** The user's home: $HOME as node:os's homedir() reads it first, node:os (~0.15 ms to load) only without it. */
function homedir(env: NodeJS.ProcessEnv): string {
  return readEnv(env, 'HOME') || process.getBuiltinModule('node:os').homedir();
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return (
    readEnv(env, 'SVC_CONFIG_DIR') || join(readEnv(env, 'XDG_CONFIG_HOME') || join(homedir(env), '.config'), 'svc')
  );
}

export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return (
    readEnv(env, 'SVC_DATA_DIR') || join(readEnv(env, 'XDG_DATA_HOME') || join(homedir(env), '.local', 'share'), 'svc')
  );
}

/** State of the emulator started by `--emulator` (persisted between invocations). */
export function emulatorStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return readEnv(env, 'SVC_EMULATOR_STATE_DIR') || join(dataDir(env), 'emulator');
}
