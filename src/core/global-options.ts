// Options every command takes: the data of global-flags.ts with the checks of their values.
import type { OptionSpec } from './command.js';
import { GLOBAL_FLAGS } from './global-flags.js';
import { integer, number, type FlagParser } from './validate.js';

const PARSERS: Record<string, FlagParser<any>> = {
  '--timeout <seconds>': number({ min: 0, minExclusive: true, max: 86400 }),
  '--max-retries <n>': integer({ min: 0, max: 10 }),
};

export const GLOBAL_OPTIONS: OptionSpec[] = GLOBAL_FLAGS.map((f) => ({ ...f, parse: PARSERS[f.flags] }));
