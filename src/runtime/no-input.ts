// --no-input: a run that must never wait for a person (CI jobs, cron, agents). Anything that would ask — a
// confirmation, a hidden key prompt, a REPL on a terminal — fails at once with exit 2 and names the flag that
// answers the question instead. On with --no-input, SVC_NO_INPUT=1, or CI set (as CI systems do).
import { readEnv } from '../core/environment.js';
import { UsageError } from '../core/errors.js';

const truthy = (v: string | undefined): boolean => v !== undefined && v !== '' && !/^(0|false|no|off)$/i.test(v.trim());

/** Why prompting is off, or undefined when a person may be asked. */
export function noInputReason(globals: { input?: boolean }, env: NodeJS.ProcessEnv): string | undefined {
  if (globals.input === false) return '--no-input';
  if (truthy(readEnv(env, 'SVC_NO_INPUT'))) return 'SVC_NO_INPUT is set';
  if (truthy(readEnv(env, 'CI'))) return 'CI is set, which implies --no-input';
  return undefined;
}

/** Throw the exit-2 error for a question that cannot be asked: what would have been asked and what answers it. */
export function refusePrompt(reason: string, question: string, answer: string): never {
  throw new UsageError(`${question}: svc would ask, but ${reason}; ${answer} (nothing was sent)`);
}
