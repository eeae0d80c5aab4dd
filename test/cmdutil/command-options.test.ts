// A command's options for one command line (src/cmdutil/command-options.ts): commander, given only the options
// optionsNeeded() picks, must parse every command line as it does with all of them — the same values, the same
// errors, the same messages. Checked here for every flag of every command, alone and together.
import { Command, type CommanderError } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CommandSpec } from '../../src/cmdutil/command.js';
import type { OptionSpec } from '../../src/core/option-spec.js';
import { commandLineOptions, optionsNeeded } from '../../src/cmdutil/command-options.js';
import { makeOption } from '../../src/cmdutil/commander-option.js';
import { GLOBAL_OPTIONS } from '../../src/core/global-options.js';
import { loadCommandSpecs } from '../helpers/command-tree.js';

let specs: Map<string, CommandSpec>;
beforeAll(async () => {
  specs = await loadCommandSpecs();
});

/** Commander's outcome for argv: the values (read once parsed), or the error and what it printed. */
function outcome(cmd: Command, argv: string[], values: () => unknown): unknown {
  let printed = '';
  const output = { writeOut: (t: string) => (printed += t), writeErr: (t: string) => (printed += t) };
  for (let c: Command | null = cmd; c; c = c.parent)
    c.exitOverride().showSuggestionAfterError(true).configureOutput(output);
  const root = cmd.parent ?? cmd;
  try {
    root.parse(root === cmd ? argv : [cmd.name(), ...argv], { from: 'user' });
    return { values: values() };
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    return { error: err.message, code: (err as CommanderError).code, printed: printed.replace(/Usage:[^]*/, '') };
  }
}

/** A command of these options and the spec's arguments (all optional: flags are what is compared). */
function commandOf(name: string, spec: CommandSpec, options: readonly OptionSpec[]): Command {
  const cmd = new Command(name).allowExcessArguments(true);
  for (const a of spec.args ?? []) cmd.argument(a.variadic ? `[${a.name}...]` : `[${a.name}]`);
  for (const o of options) cmd.addOption(makeOption(o));
  return cmd;
}

/** What commander makes of argv with these options: the values, or the error and what it printed. */
function parse(spec: CommandSpec, options: readonly OptionSpec[], argv: string[]): unknown {
  const cmd = commandOf('x', spec, options).action(() => {});
  return outcome(cmd, argv, () => ({ opts: cmd.opts(), args: cmd.args }));
}

/** A value a flag takes: one of its choices, else a word its parser may or may not accept (both are compared). */
function valueFor(o: OptionSpec): string | undefined {
  if (!/[<[]/.test(o.flags)) return undefined;
  return o.choices?.[0] ?? '1';
}

function wordsFor(o: OptionSpec): string[][] {
  const names = o.flags.split(/[ ,|]+/).filter((w) => w.startsWith('-'));
  const value = valueFor(o);
  return names.flatMap((n) => {
    if (value === undefined) return [[n]];
    const forms = [[n, value], [n]];
    if (n.startsWith('--')) forms.push([`${n}=${value}`]);
    else forms.push([`${n}${value}`]);
    return forms;
  });
}

const NONE: ReadonlySet<string> = new Set();

/** The program with the global options and one command under it, as src/cli.ts builds them: what parsing gives. */
function parseWithGlobals(spec: CommandSpec, argv: string[], pick: boolean): unknown {
  const own = spec.options ?? [];
  const picked = pick ? commandLineOptions(own, GLOBAL_OPTIONS, argv) : { own, globals: GLOBAL_OPTIONS };
  const program = new Command('svc');
  for (const o of picked.globals) program.addOption(makeOption(o));
  const sub = commandOf('cmd', spec, picked.own);
  let values: unknown;
  sub.action((...params: unknown[]) => {
    values = (params[params.length - 1] as Command).optsWithGlobals();
  });
  program.addCommand(sub);
  return outcome(sub, argv, () => values);
}

describe('optionsNeeded', () => {
  it('parses each flag of every command as all of the options do', () => {
    let lines = 0;
    for (const [name, spec] of specs) {
      const all = spec.options ?? [];
      for (const o of all) {
        for (const words of wordsFor(o)) {
          const argv = ['prompt words', ...words];
          const picked = optionsNeeded(all, argv, NONE);
          expect(parse(spec, picked, argv), `${name} ${argv.join(' ')}`).toEqual(parse(spec, all, argv));
          lines++;
        }
      }
    }
    expect(lines).toBeGreaterThan(1000);
  });

  it('parses command lines of several flags, unknown flags, help, `--` and values that look like flags alike', () => {
    const chat = specs.get('chat')!;
    const all = chat.options!;
    const lines = [
      ['hi'],
      ['hi', '--no-stream', '-m', 'svc-mini', '--temperature', '0.5', '--max-completion-tokens', '20'],
      ['hi', '--no-stream', '--no-save', '--usage'],
      ['hi', '--temprature', '1'],
      ['hi', '--temperature', '-1'],
      ['hi', '-x'],
      ['hi', '--system', '--no-stream'],
      ['--', '--no-stream', 'is a word'],
      ['hi', '--stream', '--no-stream'],
    ];
    for (const argv of lines)
      expect(parse(chat, optionsNeeded(all, argv, NONE), argv), argv.join(' ')).toEqual(parse(chat, all, argv));
  });

  it('parses the global options, before and after the command and among its flags, as all of them do', () => {
    let lines = 0;
    for (const name of ['chat', 'models list', 'files upload', 'tts say', 'images generate']) {
      const spec = specs.get(name)!;
      const own = spec.options ?? [];
      const some = own.slice(0, 3).flatMap((o) => wordsFor(o).slice(0, 1));
      for (const g of GLOBAL_OPTIONS) {
        for (const words of wordsFor(g)) {
          for (const argv of [
            [...words, 'x'],
            ['x', ...words],
            ...some.map((w) => ['x', ...w, ...words]),
            ['x', '--no-such-flag', ...words],
            [...words.map((w) => w.replace(/^--/, '--x')), 'x'],
          ]) {
            expect(parseWithGlobals(spec, argv, true), `${name} ${argv.join(' ')}`).toEqual(
              parseWithGlobals(spec, argv, false),
            );
            lines++;
          }
        }
      }
    }
    expect(lines).toBeGreaterThan(300);
  });

  it(
    'builds only the named options, those with a default and the negations; all of them for help or an unknown ' +
      'flag',
    () => {
      const chat = specs.get('chat')!;
      const all = chat.options!;
      const flags = (argv: string[], elsewhere = NONE) => optionsNeeded(all, argv, elsewhere).map((o) => o.flags);
      // a flag whose --no- form exists (--save <name> beside --no-save) is built with it
      const negated = all.flatMap((o) => /--no-([\w-]+)/.exec(o.flags)?.[1] ?? []);
      const always = all
        .filter(
          (o) =>
            o.default !== undefined ||
            o.flags.includes('--no-') ||
            negated.some((n) => new RegExp(`(^|, )--${n}( |$)`).test(o.flags)),
        )
        .map((o) => o.flags);
      expect(always.length).toBeLessThan(all.length / 2);
      expect(flags(['hi'])).toEqual(always);
      expect(flags(['hi', '--temperature', '1'])).toEqual(
        all.filter((o) => always.includes(o.flags) || o.flags.includes('--temperature <')).map((o) => o.flags),
      );
      expect(flags(['hi', '--help'])).toHaveLength(all.length);
      expect(flags(['hi', '--json'])).toHaveLength(all.length);
      expect(flags(['hi', '--json'], new Set(['--json']))).toEqual(always);
    },
  );
});
