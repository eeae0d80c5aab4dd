// A command is data (flags, arguments, help, examples) plus a runner that returns an exit code.
import type { Context } from '../runtime/context.js';
import type { RequestTable } from '../core/request-table.js';
import type { ArgSpec, OptionSpec, OptionValues } from '../core/option-spec.js';

/** A command's spec: its one-line summary is its tree node's (CommandNode.summary), said nowhere else. */
export interface CommandSpec<Opts = any, Options extends readonly OptionSpec[] = readonly OptionSpec[]> {
  /** the help text after the summary */
  description?: string;
  args?: ArgSpec[];
  options?: Options;
  examples?: string[];
  /** the operations this command sends, as request tables (flag → body field → check); read by the coverage test */
  requests?: RequestTable[];
  /**
   * The documented fields of what it prints with --json (a list: of each row), from endpoints/json-fields.ts:
   * `--json FIELD,FIELD` picks among them (cmdutil/json-fields.ts); without, a field list is a usage error. A
   * function loads them (the generated table) only when the command line has --json.
   */
  jsonFields?: readonly string[] | (() => Promise<readonly string[]>);
  /** positional values in declared order (a variadic one is an array); options by camelCase name */
  run(ctx: Context, args: any[], opts: Opts): Promise<number>;
}

/** A node of the command tree: a leaf has `load`, a group has `children`, `chat` has both. */
export interface CommandNode {
  name: string;
  /** the one line that group listings, help and man pages, docs/commands.md and completion show for it */
  summary: string;
  aliases?: string[];
  load?: () => Promise<{ default: CommandSpec }>;
  children?: () => Promise<CommandNode[]> | CommandNode[];
  hidden?: boolean;
}

/**
 * A folder's place at the tree's root: `export const root: RootEntry` in src/commands/<folder>/index.ts, literals
 * only (scripts/gen-index.mjs reads it without loading the module and writes src/commands/index.ts from all of them).
 */
export interface RootEntry {
  summary: string;
  /** its place in the root's list (completion, man pages, docs/commands.md; `svc --help` sorts by name) */
  order: number;
  aliases?: string[];
  /** the module of the folder that the bare word runs: a command without verbs, or a group's default (chat) */
  runs?: string;
}

/** `run`'s `opts` are typed from `options` (core/option-spec OptionValues): no option type is written by hand. */
export function defineCommand<const Options extends readonly OptionSpec[] = readonly []>(
  spec: CommandSpec<OptionValues<Options>, Options>,
): CommandSpec<OptionValues<Options>, Options> {
  return spec;
}
