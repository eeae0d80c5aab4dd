// Where requests go with --emulator: an emulator started in this process on the state folder every `--emulator` run
// shares (emulatorStateDir), closed by the run's exit hooks. cli.ts hands it to a command's context; shell
// completion (commands/completion/dynamic.ts) to the context of its lookups, so both see the same ids and models.
import type { EndpointResolver } from './context.js';
import { UsageError } from '../core/errors.js';
import { readEnv } from '../core/environment.js';

/** --emulator: start the emulator in this process (state persisted in the data dir) and send everything to it. */
export function inProcessEmulator(env: NodeJS.ProcessEnv): EndpointResolver {
  return async (_config, onExit) => {
    const { startEmulator } = await import('svc-emulator');
    const { emulatorStateDir } = await import('../core/paths.js');
    const pace = readEnv(env, 'SVC_EMULATOR_REALTIME_PACE');
    const realtimePace = pace === undefined || pace === '' ? undefined : Number(pace);
    if (realtimePace !== undefined && !(realtimePace >= 0 && realtimePace <= 10))
      throw new UsageError(`SVC_EMULATOR_REALTIME_PACE: ${pace} is not allowed: a number from 0 to 10`);
    const emu = await startEmulator({
      port: 0,
      host: '127.0.0.1',
      stateDir: emulatorStateDir(env),
      quietLog: true,
      tokenDelayMs: Number(readEnv(env, 'SVC_EMULATOR_TOKEN_DELAY_MS') ?? 12),
      settings: realtimePace === undefined ? undefined : { realtimePace },
    });
    onExit(() => emu.close());
    return { baseUrl: emu.url, apiKey: emu.defaultKey };
  };
}
