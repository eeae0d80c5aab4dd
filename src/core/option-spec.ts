// A command's flags and positional arguments as data: what help, parsing, completion and the request tables read.
import type { FlagKey } from './global-flags.js';
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
  implies?: Readonly<Record<string, unknown>>;
  /** values shell completion asks `svc __complete` for (default: from the flag's name, e.g. --model → models; false:
   * none, for a flag whose name another command's flag of other values shares) */
  complete?: CompletionKind | false;
  /** help heading of a shared flag set (cmdutil/flag-sets.ts): Model, Sampling, Output, Tools, Search, Audio */
  group?: string;
}

/**
 * The type of one flag's value as commander hands it to `run`: what its parser returns, else one of its choices,
 * else the word (`<value>`), the words (`<values...>`), the word or true (`[value]`) or a boolean (a bare flag). A
 * default commander passes as written, unparsed.
 */
type OptionValue<S> =
  | (S extends { parse: (...args: any[]) => infer T }
      ? T
      : S extends { choices: readonly (infer C)[] }
        ? C
        : S extends { flags: `${string}<${string}...>${string}` }
          ? string[]
          : S extends { flags: `${string}<${string}` }
            ? string
            : S extends { flags: `${string}[${string}` }
              ? string | true
              : boolean)
  | (S extends { default: infer D } ? D : never);

/** A spec as its key, its value, whether it has a default and is a `--no-` flag; flags only `string`: none. */
type OptionEntry<S> = S extends { flags: infer F extends string }
  ? string extends F
    ? never
    : {
        key: FlagKey<F>;
        value: OptionValue<S>;
        hasDefault: S extends { default: unknown } ? true : false;
        negated: F extends `${string}--no-${string}` ? true : false;
      }
  : never;

/** The keys of the flags that are not `--no-` ones. */
type PlainKeys<All> = All extends { negated: false; key: infer K } ? K : never;

/** Whether commander always gives the key a value: a default, or a `--no-x` whose `--x` the command lacks (true). */
type AlwaysGiven<E, All> = E extends { hasDefault: true }
  ? true
  : E extends { negated: true; key: infer K }
    ? K extends PlainKeys<All>
      ? false
      : true
    : false;

/** A `--no-x` beside an `--x` gives false (`--save <name>` and `--no-save`: a name, false or nothing). */
type EntryValue<E, All> = E extends { negated: true; key: infer K; value: infer V }
  ? K extends PlainKeys<All>
    ? false
    : V
  : E extends { value: infer V }
    ? V
    : never;

type Flatten<T> = { [K in keyof T]: T[K] } & {};

/**
 * The `opts` of a command's `run`, inferred from its option specs (cmdutil/command.ts defineCommand): the key as
 * commander names it (FlagKey: `--max-tokens` → maxTokens, `--no-stream` → stream), optional unless always given.
 * The specs must keep their literal types (`as const satisfies`, generic helpers): a spec typed only as OptionSpec
 * gives no key, so a flag read through it fails to compile rather than read as `any`.
 */
export type OptionValues<O extends readonly unknown[]> = Flatten<
  {
    [E in OptionEntry<O[number]> as AlwaysGiven<E, OptionEntry<O[number]>> extends true ? E['key'] : never]: EntryValue<
      E,
      OptionEntry<O[number]>
    >;
  } & {
    [E in OptionEntry<O[number]> as AlwaysGiven<E, OptionEntry<O[number]>> extends true
      ? never
      : E['key']]?: EntryValue<E, OptionEntry<O[number]>>;
  }
>;

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

/** The characters commander splits a spec's flags at (`-a, --attach <file|url|->`). */
const FLAG_SEPARATORS = ' ,|';

function wordEnd(flags: string, from: number): number {
  let end = from;
  while (end < flags.length && !FLAG_SEPARATORS.includes(flags[end]!)) end++;
  return end;
}

/**
 * Commander's Option.name(): `model` for '-m, --model <id>', `no-stream` for '--no-stream' (the long flag, else the
 * short one without its dash). Read by scanning: it runs for every flag of a command on each command line, where
 * commander's regular expressions and split arrays cost ~60 KB of young heap for `svc chat` (a second scavenge).
 */
export function flagName(flags: string): string {
  let at = flags.indexOf('--');
  while (at > 0 && !FLAG_SEPARATORS.includes(flags[at - 1]!)) at = flags.indexOf('--', at + 1);
  if (at === -1) return flags.slice(flags.startsWith('-') ? 1 : 0, wordEnd(flags, 0));
  return flags.slice(at + 2, wordEnd(flags, at));
}

/** Commander's attributeName(): `maxTokens` for `max-tokens`, `stream` for `no-stream`. */
export function attributeName(name: string): string {
  const bare = name.startsWith('no-') ? name.slice(3) : name;
  let dash = bare.indexOf('-');
  if (dash === -1) return bare;
  let key = bare.slice(0, dash);
  while (dash !== -1) {
    const next = bare.indexOf('-', dash + 1);
    const word = next === -1 ? bare.slice(dash + 1) : bare.slice(dash + 1, next);
    key += word[0]!.toUpperCase() + word.slice(1);
    dash = next;
  }
  return key;
}

/** What a spec's flag takes: '<' a value, '' none; undefined an optional ('[value]') or repeatable ('<values...>'). */
export function flagValue(flags: string): '<' | '' | undefined {
  const angle = flags.indexOf('<');
  const bracket = flags.indexOf('[');
  if (angle === -1 && bracket === -1) return '';
  if (angle === -1 || (bracket !== -1 && bracket < angle)) return undefined;
  const dots = flags.indexOf('...', angle);
  return dots !== -1 && dots < wordEnd(flags, angle) ? undefined : '<';
}
