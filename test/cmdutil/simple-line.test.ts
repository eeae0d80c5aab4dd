// A simple command line is read without commander (src/cmdutil/simple-line.ts): for every line it takes, what it
// reads must be what commander's action gets (the arguments, the options, the global ones, the flags as typed), and
// every other line must be left to commander. Both readings come from src/cli.ts (bothReadings), with the tree and
// the specs the CLI runs.
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { bothReadings } from '../../src/cli.js';
import type { CommandSpec } from '../../src/cmdutil/command.js';
import type { OptionSpec } from '../../src/core/option-spec.js';
import type { Streams } from '../../src/term/output.js';
import { loadCommandTree } from '../helpers/command-tree.js';

const sink = () =>
  Object.assign(
    new Writable({
      write: (_chunk, _encoding, done) => done(),
    }),
    { isTTY: false as const },
  );

function io(): { streams: Streams; env: NodeJS.ProcessEnv } {
  return { streams: { stdin: process.stdin, stdout: sink(), stderr: sink() } as unknown as Streams, env: {} };
}

let commands: { words: string[]; spec: CommandSpec }[];
beforeAll(async () => {
  commands = (await loadCommandTree()).flatMap(({ words, spec }) => (spec ? [{ words: words.split(' '), spec }] : []));
});

/** The arguments a command requires, as words. */
const requiredArgs = (spec: CommandSpec) =>
  (spec.args ?? []).filter((a) => a.required).map((a, i) => a.choices?.[0] ?? `arg${i}`);

/** Values to try for a flag that takes one: a choice, and words a parser may take or refuse. */
function valuesFor(o: OptionSpec): string[] | undefined {
  if (!/[<[]/.test(o.flags)) return undefined;
  return o.choices ? [o.choices[0]!, 'nope'] : ['1', 'x', '0.5'];
}

const longOf = (o: OptionSpec) => o.flags.split(/[ ,|]+/).find((w) => w.startsWith('--'));

/** Command lines of the command: bare, each long flag alone with each value, the flags together, with globals. */
function linesOf(words: string[], spec: CommandSpec): string[][] {
  const args = requiredArgs(spec);
  const lines: string[][] = [
    [...words, ...args],
    [...words, ...args, 'extra', 'words'],
    ['--quiet', ...words, '--profile', 'p', ...args, '--no-color', '--json', '--timeout', '5'],
    ['--timeout', '0', ...words, ...args],
  ];
  const together: string[] = [];
  for (const o of spec.options ?? []) {
    const long = longOf(o);
    if (!long) continue;
    const values = valuesFor(o);
    if (!values) {
      lines.push([...words, long, ...args]);
      together.push(long);
      continue;
    }
    for (const v of values) lines.push([...words, ...args, long, v]);
    together.push(long, values[0]!);
  }
  lines.push([...words, ...together, ...args], ['--verbose', ...words, ...args, ...together, '--max-retries', '1']);
  return lines;
}

describe('a simple command line, read without commander', () => {
  it('reads every line it takes as commander does, for every flag of every command', async () => {
    let taken = 0;
    let lines = 0;
    for (const { words, spec } of commands) {
      for (const argv of linesOf(words, spec)) {
        lines++;
        const r = await bothReadings(argv, io());
        if (r.simple === undefined) continue;
        taken++;
        // a line it takes is one commander reads without an error, to the same command and values
        expect({ argv, thrown: r.thrown, leaf: r.commander }).toStrictEqual({
          argv,
          thrown: undefined,
          leaf: r.simple,
        });
      }
    }
    // most lines are simple: each flag with a value it accepts, the globals
    expect(taken).toBeGreaterThan(lines / 2);
  });

  it.each([
    ['chat', '--no-stream', 'hi'],
    ['models', 'list'],
    ['models', 'list', '--kind', 'language', '--json'],
    ['--quiet', 'chat', '--model', 'svc-4', '--temperature', '0.5', 'hello', 'there'],
    ['chat', '--max-tokens', '5', '--stop', 'a', '--stop', 'b', 'hi'],
    ['--json', 'id', 'models', 'list'],
    ['chat', '-', '--no-save'],
  ])('takes %j, as commander reads it', async (...argv) => {
    const r = await bothReadings(argv, io());
    expect(r.simple).toBeDefined();
    expect(r.commander).toStrictEqual(r.simple);
  });

  it.each([
    // help and the version
    ['chat', '--help'],
    ['models', 'list', '-h'],
    ['--version'],
    // short flags, a value joined by =, `--`
    ['-q', 'models', 'list'],
    ['chat', '-m', 'svc-4', 'hi'],
    ['chat', '--model=svc-4', 'hi'],
    ['chat', '--', '--no-stream'],
    // an unknown flag, an abbreviation, a value that starts with a dash, a value missing
    ['models', 'list', '--nosuch'],
    ['chat', '--mode', 'svc-4', 'hi'],
    ['chat', '--temperature', '-1', 'hi'],
    ['chat', 'hi', '--model'],
    // a bad value (the parser's or a choice), too many arguments, a missing one
    ['chat', '--temperature', '9', 'hi'],
    ['models', 'list', '--kind', 'nope'],
    ['models', 'list', 'extra'],
    ['files', 'get'],
    // a command's flag before its last word, a group, an unknown command
    ['models', '--kind', 'language', 'list'],
    ['models'],
    ['nosuch'],
  ])('leaves %j to commander', async (...argv) => {
    const r = await bothReadings(argv, io());
    expect(r.simple).toBeUndefined();
  });
});
