// A command is data (flags, arguments, help, examples) plus a runner that returns an exit code.
import type { Context } from './context.js';
import type { FlagParser } from './validate.js';
import type { RequestTable } from './request-table.js';

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
  /** values shell completion asks `svc __complete` for (default: from the flag's name, e.g. --model → models) */
  complete?: CompletionKind;
  /** help heading of a shared flag set (core/flag-sets.ts): Model, Sampling, Output, Tools, Search, Audio */
  group?: string;
}

/** Dynamic values for shell completion (src/commands/completion/dynamic.ts). */
export type CompletionKind = 'profiles' | 'models' | 'models:language' | 'models:image' | 'models:video' | 'models:embedding' | 'voices' | 'files' | 'agents' | 'numbers' | 'responses' | 'custom-voices' | 'skills';

export interface ArgSpec {
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
  choices?: readonly string[];
  /** values shell completion asks `svc __complete` for (default: ids of the command's resource) */
  complete?: CompletionKind;
}

export interface CommandSpec<Opts = any> {
  summary: string;
  description?: string;
  args?: ArgSpec[];
  options?: OptionSpec[];
  examples?: string[];
  /** the operations this command sends, as request tables (flag → body field → check); read by the coverage test */
  requests?: RequestTable[];
  /** positional values in declared order (a variadic one is an array); options by camelCase name */
  run(ctx: Context, args: any[], opts: Opts): Promise<number>;
}

/** A node of the command tree: a leaf has `load`, a group has `children`, `chat` has both. */
export interface CommandNode {
  name: string;
  summary: string;
  aliases?: string[];
  load?: () => Promise<{ default: CommandSpec }>;
  children?: () => Promise<CommandNode[]> | CommandNode[];
  hidden?: boolean;
}

export function defineCommand<Opts = any>(spec: CommandSpec<Opts>): CommandSpec<Opts> {
  return spec;
}
