// Options every command takes: the data of global-flags.ts with the checks of their values.
import type { OptionSpec } from './option-spec.js';
import { GLOBAL_FLAGS } from './global-flags.js';
import { integer, number, type FlagParser } from './validate.js';

/** The checks of --timeout and --max-retries; SVC_TIMEOUT, SVC_MAX_RETRIES and profile values get the same. */
export const parseTimeout = number({ min: 0, minExclusive: true, max: 86400 });
export const parseMaxRetries = integer({ min: 0, max: 10 });

const PARSERS: Record<string, FlagParser<any>> = {
  '--timeout <seconds>': parseTimeout,
  '--max-retries <n>': parseMaxRetries,
};

export const GLOBAL_OPTIONS: OptionSpec[] = GLOBAL_FLAGS.map((f) => ({ ...f, parse: PARSERS[f.flags] }));
