// The top-level help, printed without loading commander (svc --help is the most common first command).
import { fstatSync, writeSync } from 'node:fs';
import { rootCommands } from './commands/index.js';
import { GLOBAL_FLAGS } from './core/global-flags.js';
import { helpList, wrapHelpText } from './term/wrap.js';

/** `svc help TOPIC` (src/commands/help/topics.ts); any other word after `help` is a command to show help for. */
export const HELP_TOPICS = ['environment', 'exit-codes', 'globals'];

export const PROGRAM_DESCRIPTION =
  'The command line for the svc AI API: text, media, storage, agents and real-time voice.';
const PROGRAM_EPILOGUE = `
Examples:
  $ svc --emulator chat "Write a haiku about terminals"
  $ cat notes.md | svc chat "summarize" > summary.md
  $ svc models list --kind language

Exit codes: 0 ok, 1 error, 2 usage, 3 cancelled, 4 auth, 5 not found, 6 rate limited, 7 server error, 130 interrupted.
More: svc help environment | exit-codes | globals; scripting contract: docs/scripting.md.
`;

export function topLevelHelp(width = 80): string {
  const options: [string, string][] = [
    ['-V, --version', 'print the version'],
    ...GLOBAL_FLAGS.map((o): [string, string] => [o.flags, o.description]),
    ['-h, --help', 'show help'],
  ];
  const commands: [string, string][] = rootCommands
    .filter((c) => !c.hidden)
    .map((c): [string, string] => [c.aliases?.length ? `${c.name}|${c.aliases.join('|')}` : c.name, c.summary])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)); // not localeCompare: ICU costs ~6 ms to start
  // one alignment for both lists
  const pad = Math.max(...[...options, ...commands].map(([term]) => term.length)) + 3;
  const rows = (list: [string, string][]) => helpList(list, width, pad);
  return wrapHelpText(
    `Usage: svc [options] [command]

${PROGRAM_DESCRIPTION}

Options:
${rows(options)}

Commands:
${rows(commands)}
${PROGRAM_EPILOGUE}`,
    width,
  );
}

/**
 * `svc --help` (stdout, exit 0) and bare `svc` (stderr, exit 2). Written with writeSync: creating the
 * process.stdout stream costs more than the help itself, and only a terminal's width needs it. A write that fails
 * (a full disk) throws: the launcher then runs the CLI, whose stdout writer reports it; a closed pipe is no error.
 */
export function printTopLevelHelp(toStderr: boolean): number {
  const fd = toStderr ? 2 : 1;
  // only a character device can be a terminal; cli.ts imports this file and must not load node:tty for it
  const width = fstatSync(fd).isCharacterDevice() ? (toStderr ? process.stderr : process.stdout).columns || 80 : 80;
  const text = Buffer.from(topLevelHelp(width));
  try {
    for (let written = 0; written < text.length; ) written += writeSync(fd, text, written);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPIPE') throw err;
  }
  return toStderr ? 2 : 0;
}
