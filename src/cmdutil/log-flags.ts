// Flags shared by `svc logs` and `svc usage`: the period and the filters of the call log.
import type { OptionSpec } from '../core/option-spec.js';
import { duration } from '../core/validate.js';
import { modelFlag } from './flag-sets.js';

export const SINCE_FLAG = {
  flags: '--since <duration>',
  description: 'only calls this recent (e.g. 90m, 24h, 7d; at most 3650d)',
  parse: duration({ min: 1, max: 3650 * 86400 }),
} as const satisfies OptionSpec;
export const MODEL_FILTER = modelFlag('only calls to this model (as sent or as answered)');
export const COMMAND_FILTER = {
  flags: '--command <words>',
  description: 'only calls of this command (e.g. chat, "models list")',
} as const satisfies OptionSpec;

/** The earliest time (ms) a --since of `secs` seconds allows. */
export const sinceMs = (now: number, secs: number | undefined): number | undefined =>
  secs === undefined ? undefined : now - secs * 1000;
