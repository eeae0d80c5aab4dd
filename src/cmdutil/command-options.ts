// Which of a command's flags commander is given for a command line: all of them, or only those it needs. Commander
// builds an Option in ~20 µs (its flags split by a regular expression, the name camel-cased…), run cold in every
// process: chat's 55 options were ~1.2 ms of every `svc chat` (cmdutil/commander-option.ts makes them).
import { FILE_TARGET_PARSERS, type OptionSpec } from '../core/option-spec.js';

/** The flag commander derives the value's name from (for messages that name the flag). */
export function longFlag(flags: string): string {
  const m = /--([a-z0-9-]+)/i.exec(flags);
  return m ? `--${m[1]}` : flags.split(/[ ,]/)[0]!;
}

/** '-m, --model <id>' → ['-m', '--model'] */
function namesOf(flags: string): string[] {
  return flags.split(/[ ,|]+/).filter((w) => w.startsWith('-'));
}

/** Every flag word of these options ('-m', '--model', '--no-stream' …). */
function flagNames(specs: readonly OptionSpec[]): Set<string> {
  return new Set(specs.flatMap((s) => namesOf(s.flags)));
}

/**
 * The options of `specs` that `argv` needs, for commander to parse it as it would with all of them: those it names,
 * those with a default and the negations (`--no-stream` alone gives `stream` its default, true) with the flag they
 * negate, when the command has it too (`--aec` before `--no-aec`: no default, commander's rule). All of them when
 * argv asks for help or has an option word that is neither one of them nor one of `elsewhere` (the program's
 * global flags): commander then lists them, or names the unknown flag and suggests the closest. Words after `--`
 * are arguments. A value that looks like a flag (`--temperature -1`) counts as one: a superset is parsed alike.
 */
export function optionsNeeded(
  specs: readonly OptionSpec[],
  argv: readonly string[],
  elsewhere: ReadonlySet<string>,
): readonly OptionSpec[] {
  const named = new Set<string>();
  for (const word of argv) {
    if (word === '--') break;
    if (word === '-h' || word === '--help') return specs;
    if (word.startsWith('--')) named.add(word.split('=', 1)[0]!);
    else if (word.length > 1 && word.startsWith('-')) for (const c of word.slice(1)) named.add(`-${c}`);
  }
  const negated = new Set(
    specs.flatMap((s) =>
      namesOf(s.flags)
        .filter((n) => n.startsWith('--no-'))
        .map((n) => `--${n.slice(5)}`),
    ),
  );
  const always = (s: OptionSpec) =>
    s.default !== undefined || s.flags.includes('--no-') || namesOf(s.flags).some((n) => negated.has(n));
  if (named.size === 0) return specs.filter(always);
  const needed: OptionSpec[] = [];
  const known = new Set(elsewhere);
  for (const spec of specs) {
    const names = namesOf(spec.flags);
    for (const n of names) known.add(n);
    if (always(spec) || names.some((n) => named.has(n))) needed.push(spec);
  }
  for (const n of named) if (!known.has(n)) return specs;
  return needed;
}

/** the program's own flags besides the global options */
const PROGRAM_FLAGS = ['-h', '--help', '-V', '--version'];

/**
 * What a command line needs of the command's options and of the program's global ones (each as optionsNeeded
 * picks them): each set knows the other's flags and the program's, so that none of them is an unknown word there.
 */
export function commandLineOptions(
  own: readonly OptionSpec[],
  globals: readonly OptionSpec[],
  argv: readonly string[],
): { own: readonly OptionSpec[]; globals: readonly OptionSpec[] } {
  return {
    own: optionsNeeded(own, argv, new Set([...PROGRAM_FLAGS, ...flagNames(globals)])),
    globals: optionsNeeded(globals, argv, new Set([...PROGRAM_FLAGS, ...flagNames(own)])),
  };
}

/** '--latency-log <file>' → 'latencyLog', the key of its value in a command's options (as commander names it) */
function attributeName(flags: string): string {
  return longFlag(flags)
    .slice(2)
    .replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Before a command runs (nothing sent yet): a file named by one of its output flags that already exists is refused
 * unless --force (core/atomic-file refuseExisting: exit 2 naming the flag, the file and --force). The command's
 * writer passes `replace: force` too, for a file that appears while it runs. Only for a command that takes --force
 * (cmdutil/flag-sets forceFlags; test/core/atomic-file-overwrite.test.ts lists those that do not yet).
 */
export async function refuseExistingOutputs(
  specs: readonly OptionSpec[],
  opts: Record<string, unknown>,
): Promise<void> {
  const named = specs.filter((s) => s.parse && FILE_TARGET_PARSERS.has(s.parse) && !s.decidesExisting);
  if (!named.length || !specs.some((s) => namesOf(s.flags).includes('--force'))) return;
  const { refuseExisting } = await import('../core/atomic-file.js');
  for (const spec of named) {
    const value = opts[attributeName(spec.flags)];
    if (typeof value !== 'string' || FILE_TARGET_PARSERS.get(spec.parse!)!.includes(value)) continue;
    refuseExisting(value, longFlag(spec.flags), opts.force === true);
  }
}
