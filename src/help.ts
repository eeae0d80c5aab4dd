// The top-level help, printed without loading commander (svc --help is the most common first command).
import { fstatSync, writeSync } from 'node:fs';
import { rootCommands } from './commands/index.js';
import { exitCodes } from './core/exit-codes.js';
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

${exitCodesLine(80)}
More: svc help environment | exit-codes | globals; scripting contract: docs/scripting.md.
`;

/** `Exit codes: 0 ok, 1 error, …` from the one table, wrapped between codes (never inside `6 rate limited`). */
function exitCodesLine(width: number): string {
  const items = exitCodes().map((e, i, all) => `${e.code} ${e.label}${i < all.length - 1 ? ',' : '.'}`);
  const lines = ['Exit codes:'];
  for (const item of items) {
    if (lines.at(-1)!.length + 1 + item.length > width) lines.push(item);
    else lines[lines.length - 1] += ` ${item}`;
  }
  return lines.join('\n');
}

function wrap(text: string, indent: number, width: number): string {
  const room = Math.max(20, width - indent);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/**
 * The groups of the root's commands, in the order help shows them: bare `svc`'s overview and `svc --help` list the
 * same groups (test/help.test.ts holds every visible root command in exactly one).
 */
export const COMMAND_GROUPS: readonly { title: string; commands: readonly string[] }[] = [
  {
    title: 'Text',
    commands: [
      'chat',
      'responses',
      'messages',
      'legacy',
      'embed',
      'tokenize',
      'documents',
      'batch',
      'conversations',
      'templates',
      'fragments',
    ],
  },
  { title: 'Media', commands: ['images', 'videos'] },
  { title: 'Files', commands: ['files', 'skills'] },
  { title: 'Voice', commands: ['tts', 'stt', 'realtime', 'custom-voices', 'audio'] },
  { title: 'Agents and phone', commands: ['agents', 'phone', 'calls'] },
  {
    title: 'Tools',
    commands: [
      'models',
      'auth',
      'whoami',
      'config',
      'alias',
      'api',
      'mcp',
      'logs',
      'usage',
      'emulator',
      'doctor',
      'completion',
      'help',
      'version',
    ],
  },
];

/** The visible root commands by group, each as [name with its aliases, summary]. */
function groupedCommands(): { title: string; rows: [string, string][] }[] {
  const visible = rootCommands.filter((c) => !c.hidden);
  return COMMAND_GROUPS.map((g) => ({
    title: g.title,
    rows: g.commands.flatMap((name): [string, string][] => {
      const c = visible.find((n) => n.name === name);
      return c ? [[c.aliases?.length ? `${c.name}|${c.aliases.join('|')}` : c.name, c.summary]] : [];
    }),
  }));
}

export function topLevelHelp(width = 80): string {
  const options: [string, string][] = [
    ['-V, --version', 'print the version'],
    ...GLOBAL_FLAGS.map((o): [string, string] => [o.flags, o.description]),
    ['-h, --help', 'show help'],
  ];
  const groups = groupedCommands();
  // one alignment for every list
  const pad = Math.max(...[...options, ...groups.flatMap((g) => g.rows)].map(([term]) => term.length)) + 3;
  const rows = (list: [string, string][]) => helpList(list, width, pad);
  return wrapHelpText(
    `Usage: svc [options] [command]

${PROGRAM_DESCRIPTION}

Options:
${rows(options)}

${groups.map((g) => `${g.title} commands:\n${rows(g.rows)}`).join('\n\n')}
${PROGRAM_EPILOGUE}`,
    width,
  );
}

/** Bare `svc`: the commands by group, names only, and where to go next (as gh does), laid out for `width`. */
export function overview(width = 80): string {
  const groups = groupedCommands().map((g): [string, string] => [
    `${g.title}:`,
    g.rows.map(([name]) => name.split('|')[0]).join(', '),
  ]);
  const next: [string, string][] = [
    ['Try it without a key:', 'svc --emulator chat "hello"'],
    ['Help on a command:', 'svc <command> --help (or svc help <command>)'],
    ['Every command and option:', 'svc --help'],
  ];
  // a label column where the text keeps 40 columns beside it; else each text under its label
  const table = (rows: [string, string][], indent: number) => {
    const pad = Math.max(...rows.map(([label]) => label.length)) + 2;
    const lead = ' '.repeat(indent);
    if (width - indent - pad >= 40)
      return rows.map(([label, text]) => `${lead}${label.padEnd(pad)}${wrap(text, indent + pad, width)}`);
    return rows.map(([label, text]) => `${lead}${label}\n${lead}    ${wrap(text, indent + 4, width)}`);
  };
  return `${wrap(`svc: ${PROGRAM_DESCRIPTION.replace(/^The/, 'the')}`, 0, width)}

${wrap('Usage: svc <command> [subcommand] [flags]', 7, width)}

${table(groups, 2).join('\n')}

${table(next, 0).join('\n')}
`;
}

/**
 * `svc --help` (the whole list) and bare `svc` (the overview), both on stdout, exit 0. Written with writeSync:
 * creating the process.stdout stream costs more than the help itself, and only a terminal's width needs it. A write
 * that fails (a full disk) throws: the launcher then runs the CLI, whose stdout writer reports it; a closed pipe is
 * no error.
 */
export function printTopLevelHelp(bare: boolean): number {
  const fd = 1;
  // only a character device can be a terminal; cli.ts imports this file and must not load node:tty for it
  const width = fstatSync(fd).isCharacterDevice() ? process.stdout.columns || 80 : 80;
  const text = Buffer.from(bare ? overview(width) : topLevelHelp(width));
  try {
    for (let written = 0; written < text.length; ) written += writeSync(fd, text, written);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPIPE') throw err;
  }
  return 0;
}
