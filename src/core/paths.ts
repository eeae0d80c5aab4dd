// Where svc keeps things: XDG locations, each overridable by an environment variable.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { readEnv } from './environment.js';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return readEnv(env, 'SVC_CONFIG_DIR') || join(readEnv(env, 'XDG_CONFIG_HOME') || join(homedir(), '.config'), 'svc');
}

export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return readEnv(env, 'SVC_DATA_DIR') || join(readEnv(env, 'XDG_DATA_HOME') || join(homedir(), '.local', 'share'), 'svc');
}

/** State of the emulator started by `--emulator` (persisted between invocations). */
export function emulatorStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return readEnv(env, 'SVC_EMULATOR_STATE_DIR') || join(dataDir(env), 'emulator');
}
