// Where svc keeps things: XDG locations, each overridable by an environment variable.
import { homedir } from 'node:os';
import { join } from 'node:path';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SVC_CONFIG_DIR) return env.SVC_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'svc');
}

export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SVC_DATA_DIR) return env.SVC_DATA_DIR;
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'svc');
}

/** State of the emulator started by `--emulator` (persisted between invocations). */
export function emulatorStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.SVC_EMULATOR_STATE_DIR || join(dataDir(env), 'emulator');
}
