// A command's flags and positional arguments as data: what help, parsing, completion and the request tables read.
import type { FlagParser } from './validate.js';

/**
 * The parsers of flags that name one file svc writes (core/atomic-file outputPath), with the words that are not a
 * file (`speaker`): before a command runs, an existing file there is refused unless --force
 * (cmdutil/command-options refuseExistingOutputs). Here, so that the runner can ask without loading the writer.
 */
export const FILE_TARGET_PARSERS = new WeakMap<object, readonly string[]>();

export interface OptionSpec {
  /** commander syntax: '-m, --model <id>', '--stream', '--no-stream' */
  flags: string;
  description: string;
  default?: unknown;
  /** parse and check the raw value; failures name the flag (exit 2, nothing sent) */
  parse?: FlagParser<any>;
  /** shown in help and used by shell completion */
  choices?: readonly string[];
  hidden?: boolean;
  /** an output file flag whose existing file the command judges itself, not the runner (svc batch: on --resume its
   * own output and journal are there) */
  decidesExisting?: true;
  /** other options this one sets when given (an alias: `--clobber` sets force) */
  implies?: Record<string, unknown>;
  /** values shell completion asks `svc __complete` for (default: from the flag's name, e.g. --model → models; false:
   * none, for a flag whose name another command's flag of other values shares) */
  complete?: CompletionKind | false;
  /** help heading of a shared flag set (cmdutil/flag-sets.ts): Model, Sampling, Output, Tools, Search, Audio */
  group?: string;
}

/**
 * Dynamic values for shell completion (src/commands/completion/dynamic.ts): the profiles of the config file, and the
 * kind of every resource whose ids are offered, which its descriptor adds (src/endpoints/resources.ts).
 */
export interface CompletionKinds {
  profiles: unknown;
}
export type CompletionKind = keyof CompletionKinds;

export interface ArgSpec {
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
  choices?: readonly string[];
  /** values shell completion asks `svc __complete` for (default: ids of the command's resource) */
  complete?: CompletionKind;
}
