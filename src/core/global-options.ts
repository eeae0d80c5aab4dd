// Options every command takes: the data of global-flags.ts with the checks of their values.
import { type OptionSpec, attributeName, flagName } from './option-spec.js';
import { GLOBAL_FLAGS, type GlobalFlag, type GlobalFlagValues } from './global-flags.js';
import { httpUrl, integer, number, type FlagParser } from './validate.js';

/** The checks of --timeout and --max-retries; SVC_TIMEOUT, SVC_MAX_RETRIES and profile values get the same. */
export const parseTimeout = number({ min: 0, minExclusive: true, max: 86400 });
export const parseMaxRetries = integer({ min: 0, max: 10 });

const PARSERS = {
  '--timeout <seconds>': parseTimeout,
  '--max-retries <n>': parseMaxRetries,
  '--base-url <url>': httpUrl(),
} satisfies { [F in GlobalFlag]?: FlagParser<any> };

/** The global options' values as commander parses them: --timeout and --max-retries checked numbers. */
export type ParsedGlobalFlags = GlobalFlagValues<{ [F in keyof typeof PARSERS]: ReturnType<(typeof PARSERS)[F]> }>;

export const GLOBAL_OPTIONS: OptionSpec[] = GLOBAL_FLAGS.map((f) => ({
  ...f,
  parse: (PARSERS as { [F in GlobalFlag]?: FlagParser<any> })[f.flags],
}));

/** The global options' values among a command's (commander's optsWithGlobals), every key present. */
export function globalValues(values: Record<string, unknown>): ParsedGlobalFlags {
  return Object.fromEntries(GLOBAL_FLAGS.map((f) => attributeName(flagName(f.flags))).map((key) => [key, values[key]]));
}
