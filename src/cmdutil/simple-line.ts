// A command line read without commander, when it is simple enough to be read only one way: global flags and the
// command's words, then long flags of the command or global ones, each with its value when it takes one, and the
// command's arguments. Commander is loaded (~70 KB), its tree built and its flags split by regular expressions in
// every process it parses; a request command's line is nearly always this simple. Anything else (help, --version,
// short flags, --flag=value, `--`, an unknown or abbreviated flag, an optional or repeatable value, a value that
// starts with a dash, a bad value, a wrong number of arguments) is left to commander, which reads it or says what is
// wrong with it: the result here is what commander hands the command's action, or undefined.
import { type ArgSpec, type OptionSpec, attributeName, flagName, flagValue } from '../core/option-spec.js';

/** What commander hands a command's action, and the flags as typed. */
export interface SimpleLine {
  /** the positional values in declared order (a variadic one an array, a missing optional one undefined) */
  args: unknown[];
  /** the command's own options by key (commander's `opts()`) */
  opts: Record<string, unknown>;
  /** the command's options with the program's over them (commander's `optsWithGlobals()`) */
  withGlobals: Record<string, unknown>;
  /** the command's own flags as typed, in order */
  given: { name: string; raw?: string }[];
}

/** A flag of the line's specs: its key and what it takes are read only for a flag given (~70 flags of chat's). */
interface Flag {
  spec: OptionSpec;
  /** `model` for '-m, --model <id>', `no-stream` for '--no-stream' (commander's Option.name()) */
  name: string;
}

const flagCache = new WeakMap<readonly OptionSpec[], Flag[]>();

function flagsOf(specs: readonly OptionSpec[]): Flag[] {
  let flags = flagCache.get(specs);
  if (flags) return flags;
  flags = specs.map((spec) => ({ spec, name: flagName(spec.flags) }));
  flagCache.set(specs, flags);
  return flags;
}

const negates = (f: Flag) => f.name.startsWith('no-');

/** Commander's values before any flag is read: the defaults, and true for a `--no-x` with no `--x` before it. */
function defaults(flags: Flag[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i]!;
    if (!negates(f)) {
      if (f.spec.default !== undefined) values[attributeName(f.name)] = f.spec.default;
      continue;
    }
    const key = attributeName(f.name);
    if (!hasPositive(flags, i, key)) values[key] = f.spec.default === undefined ? true : f.spec.default;
  }
  return values;
}

/** Whether a flag before flags[end] is the positive one of `key` (its name starts as the key does). */
function hasPositive(flags: Flag[], end: number, key: string): boolean {
  for (let j = 0; j < end; j++) {
    const g = flags[j]!;
    if (g.name.charCodeAt(0) === key.charCodeAt(0) && !negates(g) && attributeName(g.name) === key) return true;
  }
  return false;
}

/**
 * Read `argv` (`pathWords` of it the command's words, as the tree's walk found them) when it is simple; undefined
 * leaves it to commander. A flag's parser is called as commander calls it (the raw word, the long flag, the value so
 * far); one that throws leaves the line to commander, which calls it again and reports its error.
 */
export function readSimpleLine(
  argv: readonly string[],
  pathWords: number,
  own: { options: readonly OptionSpec[]; args: readonly ArgSpec[] },
  globals: readonly OptionSpec[],
): SimpleLine | undefined {
  const ownFlags = flagsOf(own.options);
  const globalFlags = flagsOf(globals);
  const opts = defaults(ownFlags);
  const globalOpts = defaults(globalFlags);
  const given: SimpleLine['given'] = [];
  const operands: string[] = [];
  let pathLeft = pathWords;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (!word.startsWith('-') || word === '-') {
      if (pathLeft > 0) pathLeft--;
      else operands.push(word);
      continue;
    }
    if (!word.startsWith('--') || word === '--' || word.includes('=')) return undefined;
    const name = word.slice(2);
    const mine = ownFlags.find((f) => f.name === name);
    const global = globalFlags.find((f) => f.name === name);
    // a flag of both, or of the command before its last word (commander's program reads the rest differently)
    if (mine ? global || pathLeft > 0 : !global) return undefined;
    const flag = (mine ?? global)!;
    const values = mine ? opts : globalOpts;
    const takes = flagValue(flag.spec.flags);
    if (takes === undefined || flag.spec.implies) return undefined;
    const key = attributeName(flag.name);
    let raw: string | undefined;
    let value: unknown;
    if (takes === '<') {
      raw = argv[++i];
      if (raw === undefined || (raw.length > 1 && raw.startsWith('-'))) return undefined;
      if (flag.spec.parse) {
        try {
          value = flag.spec.parse(raw, `--${flag.name}`, values[key]);
        } catch {
          return undefined;
        }
      } else if (flag.spec.choices && !flag.spec.choices.includes(raw)) {
        return undefined;
      } else {
        value = raw;
      }
    } else {
      // commander calls a bare flag's parser with no word: not such a simple line
      if (flag.spec.parse) return undefined;
      value = !negates(flag);
    }
    values[key] = value;
    if (mine) given.push({ name: flag.name, raw });
  }
  if (pathLeft > 0) return undefined;
  const args = argumentsOf(operands, own.args);
  if (!args) return undefined;
  // commander's optsWithGlobals: the program's values over the command's (`--no-input` over api's `--input`)
  return { args, opts, withGlobals: { ...opts, ...globalOpts }, given };
}

/** The positional values as commander hands them; undefined for too many, a required one missing or a bad choice. */
function argumentsOf(operands: string[], specs: readonly ArgSpec[]): unknown[] | undefined {
  const last = specs[specs.length - 1];
  if (operands.length > specs.length && !last?.variadic) return undefined;
  const args: unknown[] = [];
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i]!;
    const value: string[] | string | undefined = spec.variadic ? operands.slice(i) : operands[i];
    const words = value === undefined ? [] : typeof value === 'string' ? [value] : value;
    if (spec.required && words.length === 0) return undefined;
    if (spec.choices && words.some((w) => !spec.choices!.includes(w))) return undefined;
    args.push(value);
  }
  return args;
}
