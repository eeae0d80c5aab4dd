// Builds the command tree from the specs (loading only the command that runs), maps errors to exit codes,
// and is the only place that calls process.exit.
import { fstatSync, readFileSync } from 'node:fs';
import type { Command, CommanderError, Help } from 'commander';
import { wrapHelpText } from './term/wrap.js';
import type { CommandNode, CommandSpec } from './cmdutil/command.js';
import type { OptionSpec } from './core/option-spec.js';
import { commandLineOptions, refuseExistingOutputs } from './cmdutil/command-options.js';
import { readSimpleLine } from './cmdutil/simple-line.js';
import { ApiError, ExitCode, InterruptedError, UsageError, describeError, exitCodeFor } from './core/errors.js';
import { GLOBAL_OPTIONS, globalValues } from './core/global-options.js';
import type { JsonSelection, Streams } from './term/output.js';
import { guardStdout, type StdoutGuard } from './term/stdout-guard.js';
import { rootCommands } from './commands/index.js';
import { didYouMean } from './core/suggest.js';
import { readEnv } from './core/environment.js';
import { processStop, stopSignals } from './core/signals.js';
import { checkFields, isFieldList, splitJsonFields, type JsonFieldsRule } from './cmdutil/json-fields.js';

const GLOBAL_WITH_VALUE = new Set(
  GLOBAL_OPTIONS.filter((o) => o.flags.includes('<')).map((o) => /--[\w-]+/.exec(o.flags)![0]),
);

/**
 * Commander and svc's help layout on it, loaded for a command line that readSimpleLine leaves to it (help, errors,
 * the rarer syntax): a plain command line runs without either.
 */
let commander: typeof import('commander');
let SvcHelp: typeof import('./term/help-layout.js').SvcHelp;
let makeOption: typeof import('./cmdutil/commander-option.js').makeOption;
async function loadCommander(): Promise<void> {
  [commander, { SvcHelp }, { makeOption }] = await Promise.all([
    import('commander'),
    import('./term/help-layout.js'),
    import('./cmdutil/commander-option.js'),
  ]);
}

/** Written in by scripts/bundle.mjs. */
declare const __SVC_VERSION__: string | undefined;

/** The package version: in the bundle, written in at build time; in dist/, read from package.json. */
function version(): string {
  if (typeof __SVC_VERSION__ === 'string') return __SVC_VERSION__;
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version: string };
      if (pkg.name === 'svc-cli') return pkg.version;
    } catch {
      // not this one
    }
  }
  return '0.0.0';
}

/**
 * The global options on the program, once the command is known: those its command line needs
 * (cmdutil/command-options.ts),
 * all of them when no command was found.
 */
function addGlobalOptions(cmd: Command, specs: readonly OptionSpec[] = GLOBAL_OPTIONS): void {
  for (const spec of specs) cmd.addOption(makeOption(spec));
}

/** How `--json WORD` is read (cmdutil/json-fields.ts): here before the command is known. */
function jsonFieldsRule(pathWords: number, spec?: CommandSpec, documented?: readonly string[]): JsonFieldsRule {
  return {
    pathWords,
    globalsWithValue: GLOBAL_WITH_VALUE,
    // read only for a `--json WORD` before the command (~20 KB of young heap on each run otherwise)
    get rootNames() {
      return new Set(rootCommands.flatMap((c) => [c.name, ...(c.aliases ?? [])]));
    },
    takesArgs: spec ? !!spec.args?.length : true,
    documented: documented && new Set(documented),
  };
}

/** A field list's projection: term/json-fields.ts is loaded only for one. */
async function jsonSelection(names: readonly string[]): Promise<JsonSelection> {
  const { projectFields } = await import('./term/json-fields.js');
  return { names, project: (value) => projectFields(value, names) };
}

/** The command's documented fields, read (a generated table, loaded) only when the command line has --json. */
async function documentedFields(spec: CommandSpec, argv: readonly string[]): Promise<readonly string[] | undefined> {
  const fields = spec.jsonFields;
  if (!fields || !argv.some((a) => a === '--json' || a.startsWith('--json='))) return undefined;
  return typeof fields === 'function' ? fields() : fields;
}

/** Positional words of argv that may name commands, global options and their values (and a --json list) skipped. */
function commandWords(argv: string[]): string[] {
  argv = splitJsonFields(argv, jsonFieldsRule(Number.POSITIVE_INFINITY)).argv;
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (GLOBAL_WITH_VALUE.has(a)) i++;
      continue;
    }
    words.push(a);
  }
  return words;
}

/**
 * `svc [global flags] NAME ARGS…` where NAME is no command but an alias (runtime/aliases.ts): the command line it
 * expands to (the global flags before NAME kept), or the shell alias to run. Undefined when NAME is a command or
 * nothing: the alias file is read only for a word that names no command.
 */
async function aliasExpansion(argv: string[], env: NodeJS.ProcessEnv) {
  let aliases: Record<string, string> | undefined;
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return undefined;
    if (a.startsWith('-')) {
      if (GLOBAL_WITH_VALUE.has(a)) i++;
      continue;
    }
    if (rootCommands.some((c) => c.name === a || c.aliases?.includes(a))) return undefined;
    aliases ??= (await import('./runtime/aliases.js')).readAliases(env);
    if (Object.hasOwn(aliases, a)) break;
    // `svc --json id NAME`: a field list before the name (cmdutil/json-fields.ts)
    if (argv[i - 1] !== '--json' || !isFieldList(a)) return undefined;
  }
  const name = argv[i];
  if (name === undefined || !aliases) return undefined;
  const { expandAlias } = await import('./runtime/aliases.js');
  const expansion = expandAlias(name, aliases[name]!, argv.slice(i + 1));
  return 'argv' in expansion ? { argv: [...argv.slice(0, i), ...expansion.argv] } : { name, ...expansion };
}

/** Walk the tree along argv, loading only the groups on the way. */
async function resolvePath(
  argv: string[],
): Promise<{ path: CommandNode[]; levels: CommandNode[][]; unknown?: string }> {
  const words = commandWords(argv);
  const path: CommandNode[] = [];
  const levels: CommandNode[][] = [rootCommands];
  let nodes = rootCommands;
  for (const w of words) {
    const node = nodes.find((n) => n.name === w || n.aliases?.includes(w));
    // a word where only commands can stand (the root, a group that runs nothing itself) names none
    if (!node) return { path, levels, unknown: path[path.length - 1]?.load ? undefined : w };
    path.push(node);
    if (!node.children) break;
    nodes = await node.children();
    levels.push(nodes);
  }
  return { path, levels };
}

function configure(cmd: Command, streams: Streams): Command {
  cmd.exitOverride();
  cmd.configureOutput({
    writeOut: (s) => streams.stdout.write(s),
    writeErr: (s) => streams.stderr.write(s),
    // commander's error messages are printed by handleError (coloured as every error is)
    outputError: () => {},
    // the width of the streams given, as commander's defaults read process.stdout's and process.stderr's (undefined
    // when not a terminal, as theirs; their type says number): an in-process run is given streams of its own
    getOutHelpWidth: () => terminalWidth(streams.stdout),
    getErrHelpWidth: () => terminalWidth(streams.stderr),
  });
  cmd.configureHelp({ showGlobalOptions: false, sortSubcommands: true, sortOptions: false } as Partial<Help>);
  // laid out for the real width, down to 40 columns (term/help-layout.ts)
  cmd.createHelp = () => Object.assign(new SvcHelp(), cmd.configureHelp());
  cmd.showSuggestionAfterError(true);
  // commander's own hook (not in its types), replaced for a suggestion as unknown commands get
  (cmd as unknown as { unknownOption(flag: string): never }).unknownOption = (flag) => unknownOption(cmd, flag);
  // the root's words (and the completion scripts'), not commander's "display help for command"
  cmd.helpOption('-h, --help', 'show help');
  return cmd;
}

const terminalWidth = (s: Streams['stdout']) => (s.isTTY ? s.columns : undefined) as number;

/** Examples, then one line pointing to the global options (listed once: svc --help, svc help globals). */
function addExamples(cmd: Command, examples: string[] | undefined): void {
  const shown = examples?.length ? `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n` : '';
  const text = `${shown}\nGlobal options (--json, --quiet, --profile, …): svc help globals\n`;
  // wrapped at the terminal's width (as written in a pipe: the help pages record it so)
  cmd.addHelpText('after', ({ error }) => {
    const out = cmd.configureOutput();
    return wrapHelpText(text, error ? out.getErrHelpWidth?.() : out.getOutHelpWidth?.());
  });
}

/** What the process hands a command: Ctrl-C, SIGTERM and SIGHUP abort `signal`; a command may take Ctrl-C over. */
export interface ProcessControl {
  signal: AbortSignal;
  /** 143 after SIGTERM, 129 after SIGHUP: the exit code whatever the command returned */
  readonly signalExit: number | undefined;
  setInterruptHandler(fn: (() => void) | undefined): void;
  /** main(): the process exits once the command has returned, and the system closes its connections */
  exitsAfterRun?: boolean;
}

function handleSignals(): ProcessControl {
  // `svc … | head -1`: a closed pipe is not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
  });
  const stop = processStop();
  let interruptHandler: (() => void) | undefined;
  let interrupts = 0;
  process.on('SIGINT', () => {
    if (interruptHandler) return interruptHandler();
    interrupts++;
    if (interrupts > 1) process.exit(ExitCode.interrupted);
    stop.abort();
    // Give the runner a moment to flush and clean up, then stop regardless.
    setTimeout(() => process.exit(ExitCode.interrupted), 2000).unref();
  });
  // SIGTERM and SIGHUP (the terminal went away) stop the command like Ctrl-C does — temp files removed, what was
  // printed kept — and exit 128 + the signal's number.
  let signalExit: number | undefined;
  const terminate = (code: number) => () => {
    signalExit ??= code;
    stop.abort();
    setTimeout(() => process.exit(code), 2000).unref();
  };
  for (const { signal, exit } of stopSignals()) process.on(signal, terminate(exit));
  return {
    signal: stop.signal,
    get signalExit() {
      return signalExit;
    },
    setInterruptHandler: (fn) => {
      interruptHandler = fn;
    },
    exitsAfterRun: true,
  };
}

/** The root command: version and help (the global options are added once the command is known). */
function rootProgram(streams: Streams, ver: string): Command {
  const program = configure(new commander.Command('svc'), streams);
  program.version(ver, '-V, --version', 'print the version').addHelpCommand(false);
  return program;
}

/**
 * The root's description and help, for a command line that names no command (the only one that can show it):
 * help.ts is loaded for them only. The text is the launcher's (bin/svc.cjs answers a bare `svc --help` without
 * commander): the same whichever way the root's help is asked (`svc --no-color --help`, `svc help`, in-process).
 */
async function addRootHelp(program: Command, streams: Streams): Promise<void> {
  const { PROGRAM_DESCRIPTION, topLevelHelp } = await import('./help.js');
  program.description(PROGRAM_DESCRIPTION);
  program.helpInformation = () => topLevelHelp(streams.stdout.isTTY ? streams.stdout.columns || 80 : 80);
  // global options and no command (`svc --quiet`): runCli prints the overview, as for a bare `svc`
  program.action(() => {});
}

interface Invocation {
  streams: Streams;
  env: NodeJS.ProcessEnv;
  control: ProcessControl;
  version: string;
  /** exit code of the command or group that ran */
  result?: number;
  /** the context's exit hooks, once a command has one */
  cleanup?: () => Promise<void>;
  /** the global options the command line needs (once the command's spec is loaded) */
  globalOptions?: readonly OptionSpec[];
  /** the command line commander parses: argv without a --json field list */
  argv?: string[];
  /** `--json FIELD,FIELD` */
  jsonFields?: string[];
  /** a line after the error: where a refused key came from (authHint) */
  hint?: string;
  /** the command commander's action found to run */
  leaf?: Leaf;
}

/** The command a command line runs, with what commander (or readSimpleLine) read for it. */
export interface Leaf {
  spec: CommandSpec;
  /** `models list` */
  name: string;
  args: unknown[];
  opts: Record<string, unknown>;
  /** the command's options and the program's over them (commander's optsWithGlobals) */
  withGlobals: Record<string, unknown>;
  given: { name: string; raw?: string }[];
}

/**
 * Add the commands of argv's path under `program`. When the path ends at a command, only the nodes on the path
 * are built (commander objects cost ~0.1 ms each); otherwise (a group, an unknown word, help) every sibling is
 * built too, so that help lists them and a typo gets a suggestion.
 */
async function addCommandPath(program: Command, argv: string[], inv: Invocation): Promise<number> {
  const { path, levels, unknown } = await resolvePath(argv);
  // `svc nosuchcmd --help`: an unknown command is an error whatever follows it (help would hide the typo)
  if (unknown !== undefined) throw new UnknownCommand(unknown, path, levels[path.length]!);
  const last = path[path.length - 1];
  // `svc chat -- get me a recipe`: after --, words are the prompt, not a subcommand of chat
  if (last?.load && last.children && levels.length > path.length && argv.includes('--')) levels.pop();
  const pathOnly = !!last?.load && !last.children;
  let parent = program;
  for (let depth = 0; depth < levels.length; depth++) {
    const selected = path[depth];
    let next: Command | undefined;
    for (const node of levels[depth]!) {
      if (pathOnly && node !== selected) continue;
      const sub = configure(new commander.Command(node.name), inv.streams).description(node.summary);
      for (const a of node.aliases ?? []) sub.alias(a);
      if (node === selected) {
        next = sub;
        if (depth === path.length - 1 && node.load) {
          const spec = await loadCommand(path, argv, inv);
          addRunner(sub, node, spec, inv, inv.argv!, (leaf) => {
            inv.leaf = leaf;
          });
          const parentNode = path[depth - 1];
          if (parentNode?.load) {
            // `svc chat get me a recipe` ran `chat get`: say how to send such a prompt
            sub.exitOverride((err) => {
              if (err.code === 'commander.excessArguments') {
                inv.streams.stderr.write(
                  `(a prompt that starts with "${node.name}" goes after --: svc ${parentNode.name} -- ` +
                    `${node.name} …)\n`,
                );
              }
              throw err;
            });
          }
        } else if (node.children) {
          const children = levels[depth + 1] ?? [];
          const groupPath = path.slice(0, depth + 1);
          sub.allowExcessArguments(true);
          sub.action(() => {
            const [word] = sub.args;
            // `svc files -- nosuch`: a word after -- is not skipped by the walk above
            if (word !== undefined) throw new UnknownCommand(word, groupPath, children);
            sub.outputHelp({ error: true });
            inv.result = ExitCode.usage;
          });
        }
      } else if (node.children) {
        // a stub so help lists it; never run
        sub.allowUnknownOption(true);
      }
      parent.addCommand(sub, node.hidden ? { hidden: true } : undefined);
    }
    if (!next) break;
    parent = next;
  }
  return path.length;
}

/**
 * The command at the end of `path`, loaded, and its `--json FIELD,FIELD` taken out of argv (inv.argv, the command
 * line read after this) and checked.
 */
async function loadCommand(path: CommandNode[], argv: string[], inv: Invocation): Promise<CommandSpec> {
  const spec = (await path[path.length - 1]!.load!()).default as CommandSpec;
  const documented = await documentedFields(spec, argv);
  const split = splitJsonFields(argv, jsonFieldsRule(path.length, spec, documented));
  if (split.fields) checkFields(split.fields, documented && new Set(documented), pathName(path));
  inv.argv = split.argv;
  inv.jsonFields = split.fields;
  return spec;
}

/**
 * A command line readSimpleLine can read (cmdutil/simple-line.ts), read without commander: the command to run, or
 * undefined for commander to read the line.
 */
async function simpleLeaf(argv: string[], inv: Invocation): Promise<Leaf | undefined> {
  const { path, unknown } = await resolvePath(argv);
  const last = path[path.length - 1];
  if (unknown !== undefined || !last?.load) return undefined;
  const spec = await loadCommand(path, argv, inv);
  const line = readSimpleLine(
    inv.argv!,
    path.length,
    { options: spec.options ?? [], args: spec.args ?? [] },
    GLOBAL_OPTIONS,
  );
  return line && { spec, name: pathName(path), ...line };
}

/** A word where a command was expected names none: exit 2 with the closest command, before any help is shown. */
class UnknownCommand extends Error {
  constructor(word: string, path: CommandNode[], siblings: CommandNode[]) {
    const names = siblings.filter((c) => !c.hidden).flatMap((c) => [c.name, ...(c.aliases ?? [])]);
    const name = ['svc', ...path.map((n) => n.name)].join(' ');
    const of = path.length ? ` for '${name}'` : '';
    super(`unknown command '${word}'${of}${didYouMean(word, names)}\n(\`${name} --help\` lists its commands)`);
  }
}

/**
 * An unknown option: "did you mean" among the long flags of the command and its parents (the global options
 * included), as unknown commands get one; commander's own suggests less ("--al" gets no "--all").
 */
function unknownOption(cmd: Command, flag: string): never {
  const longs: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent)
    for (const o of c.options) if (o.long && !o.hidden) longs.push(o.long);
  const name = ['svc', commandName(cmd)].filter(Boolean).join(' ');
  const hint = flag.startsWith('--') ? didYouMean(flag.split('=')[0]!, ['--help', ...longs]) : '';
  cmd.error(`error: unknown option '${flag}'${hint}\n(\`${name} --help\` lists its options)`, {
    exitCode: ExitCode.usage,
    code: 'commander.unknownOption',
  });
}

const pathName = (path: CommandNode[]) => path.map((n) => n.name).join(' ');

/** `models list`: the words of a command below the program. */
function commandName(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}

/** The command's summary (its node's), flags, arguments and help (its spec's); its action hands on what it read. */
function addRunner(
  cmd: Command,
  node: CommandNode,
  spec: CommandSpec,
  inv: Invocation,
  argv: string[],
  found: (leaf: Leaf) => void,
): void {
  const options = commandLineOptions(spec.options ?? [], GLOBAL_OPTIONS, argv);
  inv.globalOptions = options.globals;
  buildLeaf(cmd, node.summary, spec, options.own, (args, opts, withGlobals, given) =>
    found({ spec, name: commandName(cmd), args, opts, withGlobals, given }),
  );
}

/** Run the command with a fresh context. */
async function runLeaf(leaf: Leaf, inv: Invocation): Promise<void> {
  const { spec, args, opts, given } = leaf;
  const parsed = globalValues(leaf.withGlobals);
  // --jq loads jq (WebAssembly) only when given; a bad expression stops here, before anything is sent
  const jq = parsed.jq === undefined ? undefined : await (await import('./term/jq.js')).compileJq(parsed.jq);
  const globals = { ...parsed, jq };
  // an output file that exists: exit 2 before anything is sent, unless --force
  await refuseExistingOutputs(spec.options ?? [], opts);
  // imported here: help and usage errors need no context (nor the config, HTTP and output modules it loads)
  const { createContext } = await import('./runtime/context.js');
  // --no-stdin: stdin is empty, as from /dev/null, for every command (runtime/stdin.ts)
  const stdin = globals.stdin === false ? (await import('./runtime/stdin.js')).emptyStdin() : undefined;
  const ctx = createContext({
    streams: stdin ? { ...inv.streams, stdin } : inv.streams,
    env: inv.env,
    globals: { ...globals, jsonFields: inv.jsonFields && (await jsonSelection(inv.jsonFields)) },
    signal: inv.control.signal,
    version: inv.version,
    command: leaf.name,
    setInterruptHandler: inv.control.setInterruptHandler,
    exitsAfterRun: inv.control.exitsAfterRun,
    endpoint: globals.emulator
      ? (await import('./runtime/emulator-endpoint.js')).inProcessEmulator(inv.env)
      : undefined,
    givenOptions: given,
  });
  inv.cleanup = () => ctx.runExitHooks();
  await ctx.out.loadColors();
  try {
    inv.result = await spec.run(ctx, args, opts);
  } catch (err) {
    // the key refused: a 401, or the 400 the API answers for a well-formed key it does not know
    const refused =
      err instanceof ApiError && (err.status === 401 || (err.status === 400 && /api[ -]?key/i.test(err.message)));
    if (refused && !globals.emulator) inv.hint = authHint(ctx.config());
    throw err;
  }
}

/** What to do about a refused key, by where it came from. */
function authHint(cfg: { apiKeySource?: string; profile: string }): string {
  const login = '`svc auth login` stores a new one';
  switch (cfg.apiKeySource) {
    case 'env':
      return `hint: the key came from SVC_API_KEY (it wins over the profile's): correct or unset it; ${login}`;
    case 'command':
      return `hint: the key came from the api_key_cmd of profile ${cfg.profile}: check what it prints, or ${login}`;
    case 'profile':
      return `hint: the key stored for profile ${cfg.profile} was refused: ${login}`;
    default:
      return 'hint: run `svc auth login`, or set SVC_API_KEY';
  }
}

export async function main(argv: string[]): Promise<never> {
  // process.stdin and process.stderr are made on first use: most commands never read stdin, most runs that succeed
  // write nothing to stderr, and making each costs 1–2 ms (into a pipe: a socket and its handle). Whether stderr is
  // a terminal is known without making it unless it is a character device (a terminal, /dev/null).
  let stderrMade = false;
  let stderrIsTTY = false;
  try {
    stderrIsTTY = fstatSync(2).isCharacterDevice() && !!process.stderr.isTTY;
    stderrMade = stderrIsTTY;
  } catch {
    // fd 2 closed: nothing can be shown there
  }
  const streams = {
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    get stderr() {
      stderrMade = true;
      return process.stderr;
    },
    stderrIsTTY,
  };
  const exitCode = await runCli(argv, { streams, env: process.env, control: handleSignals() });
  await flushOutput(stderrMade);
  process.exit(exitCode);
}

/**
 * Run one command line with the given streams, environment and process control, and return its exit code. main()
 * hands it the process's; tests hand it in-memory streams (a terminal or not, any width) to run a command in-process.
 */
export async function runCli(
  argv: string[],
  io: { streams: Streams; env: NodeJS.ProcessEnv; control: ProcessControl },
): Promise<number> {
  const { streams, env, control } = io;
  const inv: Invocation = { streams, env, control, version: version() };
  // every write to stdout from here on (help, the command's output) is watched: a failed one is this run's error
  const stdout = guardStdout(streams.stdout);
  let exitCode: number = ExitCode.ok;
  // Node turns bytes of argv that are not UTF-8 into U+FFFD: sent on, the text would say something else
  const garbled = argv.findIndex((a) => a.includes('\ufffd'));
  if (garbled >= 0) {
    streams.stderr.write(
      `error: argument ${garbled + 1} (${JSON.stringify(argv[garbled])}) is not valid UTF-8 text (a byte that is not ` +
        'UTF-8 arrives as U+FFFD); convert it first, e.g. iconv -f LATIN1 -t UTF-8\n',
    );
    return ExitCode.usage;
  }
  // `svc help files list` is `svc files list --help` (topics and bare `svc help` are the help command's own)
  const help = argv[0] === 'help' ? await import('./help.js') : undefined;
  const { HELP_TOPICS = [], topLevelHelp } = help ?? {};
  const helpFor = !!help && argv[1] !== undefined && !argv[1].startsWith('-') && !HELP_TOPICS.includes(argv[1]);
  if (argv.length === 1 && topLevelHelp) {
    streams.stdout.write(topLevelHelp(streams.stdout.isTTY ? streams.stdout.columns || 80 : 80));
    return (await stdoutFailureExit(stdout, io, argv)) ?? ExitCode.ok;
  }
  if (helpFor) {
    const word = argv[1]!;
    const names = rootCommands.filter((c) => !c.hidden).flatMap((c) => [c.name, ...(c.aliases ?? [])]);
    if (!rootCommands.some((c) => c.name === word || c.aliases?.includes(word))) {
      streams.stderr.write(
        `error: ${word} is not a command or a help ` +
          `topic${didYouMean(word, [...names, ...HELP_TOPICS])}\n(\`svc help\` lists the commands; topics: ` +
          `${HELP_TOPICS.join(', ')})\n`,
      );
      return ExitCode.usage;
    }
    argv = [...argv.slice(1), '--help'];
  }
  let failed: { err: unknown } | undefined;
  try {
    const alias = await aliasExpansion(argv, env);
    if (alias && 'shell' in alias) {
      const { runShellAlias } = await import('./runtime/aliases.js');
      return await runShellAlias(alias.name, alias.shell, alias.args, { streams, env, signal: control.signal });
    }
    if (alias) argv = alias.argv;
    inv.leaf = await simpleLeaf(argv, inv);
    const depth = inv.leaf ? 1 : await readWithCommander(argv, inv);
    if (inv.leaf) await runLeaf(inv.leaf, inv);
    exitCode = inv.result ?? ExitCode.ok;
    if (inv.result === undefined && depth === 0) {
      // no command (bare `svc`, or global options alone): the overview, as gh does
      const { overview } = await import('./help.js');
      streams.stdout.write(overview(streams.stdout.isTTY ? streams.stdout.columns || 80 : 80));
    }
  } catch (err) {
    failed = { err };
  }
  const stdoutExit = await stdoutFailureExit(stdout, io, argv);
  if (stdoutExit !== undefined) exitCode = stdoutExit;
  else if (failed) exitCode = await handleError(failed.err, control.signal, argv, streams.stderr, env, inv.hint);
  if (control.signalExit !== undefined) exitCode = control.signalExit;
  if (inv.cleanup) await inv.cleanup();
  return exitCode;
}

/**
 * Read the command line with commander (its action sets inv.leaf; help, --version and errors are its own), and
 * return how many of its words named commands.
 */
async function readWithCommander(argv: string[], inv: Invocation): Promise<number> {
  await loadCommander();
  const program = rootProgram(inv.streams, inv.version);
  const depth = await addCommandPath(program, argv, inv);
  if (depth === 0) await addRootHelp(program, inv.streams);
  addGlobalOptions(program, inv.globalOptions);
  await program.parseAsync(inv.argv ?? argv, { from: 'user' });
  return depth;
}

/**
 * A command line read both ways, and not run (test/cmdutil/simple-line.test.ts holds the two equal): what
 * readSimpleLine finds for it (undefined: left to commander), and what commander's action gets, or what it threw
 * (help shown, a usage error).
 */
export async function bothReadings(
  argv: string[],
  io: { streams: Streams; env: NodeJS.ProcessEnv },
): Promise<{ simple?: Leaf; commander?: Leaf; thrown?: unknown }> {
  const control: ProcessControl = {
    signal: new AbortController().signal,
    signalExit: undefined,
    setInterruptHandler: () => {},
  };
  const simple = await simpleLeaf(argv, { ...io, control, version: version() });
  const viaCommander: Invocation = { ...io, control, version: version() };
  try {
    await readWithCommander(argv, viaCommander);
  } catch (thrown) {
    return { simple, thrown };
  }
  return { simple, commander: viaCommander.leaf };
}

/**
 * Once stdout has taken everything: a failed write to it (a full disk, a file past its size limit, an I/O error, a
 * descriptor not open for writing) is the run's error, exit 1 with its reason, whatever the command made of it (a
 * download blamed the network); a closed pipe (`| head`) ends the run quietly with 0. Undefined when stdout is fine.
 */
async function stdoutFailureExit(
  stdout: StdoutGuard,
  io: { streams: Streams; env: NodeJS.ProcessEnv; control: ProcessControl },
  argv: string[],
): Promise<number | undefined> {
  await stdout.settle();
  const failure = stdout.failure;
  if (!failure) return undefined;
  if (failure.code === 'EPIPE') return ExitCode.ok;
  return handleError(failure, io.control.signal, argv, io.streams.stderr, io.env);
}

/**
 * Wait until stdout and stderr (if made) have handed everything to the OS: a pipe to a slow reader may still hold data.
 */
function flushOutput(stderrMade: boolean): Promise<unknown> {
  const flush = (stream: NodeJS.WriteStream) =>
    new Promise<void>((resolve) => {
      if (stream.destroyed || !stream.writable) return resolve();
      stream.write('', () => resolve());
    });
  return Promise.all([flush(process.stdout), stderrMade ? flush(process.stderr) : undefined]);
}

function buildLeaf(
  cmd: Command,
  summary: string,
  spec: CommandSpec,
  options: readonly OptionSpec[],
  found: (
    args: unknown[],
    opts: Record<string, unknown>,
    withGlobals: Record<string, unknown>,
    given: { name: string; raw?: string }[],
  ) => void,
): void {
  cmd.summary(summary);
  cmd.description(spec.description ? `${summary}\n\n${spec.description}` : summary);
  for (const a of spec.args ?? []) {
    const name = a.variadic ? `${a.name}...` : a.name;
    const arg = cmd.createArgument(a.required ? `<${name}>` : `[${name}]`, a.description);
    if (a.choices) arg.choices(a.choices as string[]);
    cmd.addArgument(arg);
  }
  // each flag as typed, in order (commander keeps only the parsed value): `chat --save` keeps them in a template
  const given: { name: string; raw?: string }[] = [];
  for (const o of options) {
    const option = makeOption(o);
    cmd.addOption(option);
    cmd.on(`option:${option.name()}`, (raw?: string) => given.push({ name: option.name(), raw }));
  }
  addExamples(cmd, spec.examples);
  cmd.action((...params: unknown[]) => {
    const command = params[params.length - 1] as Command;
    found(params.slice(0, -2), command.opts(), command.optsWithGlobals(), given);
  });
}

/** Commander's errors (its class is not loaded for a simple command line, whose errors are never commander's). */
const isCommanderError = (err: unknown): err is CommanderError =>
  err instanceof Error && 'exitCode' in err && String((err as { code?: unknown }).code).startsWith('commander.');

async function handleError(
  err: unknown,
  signal: AbortSignal,
  argv: string[],
  stderr: Streams['stderr'],
  env: NodeJS.ProcessEnv,
  hint?: string,
): Promise<number> {
  if (isCommanderError(err)) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return ExitCode.ok;
    if (err.code === 'commander.help') return ExitCode.usage;
  }
  if (signal.aborted || err instanceof InterruptedError) {
    return ExitCode.interrupted;
  }
  const { colorWanted, loadColors } = await import('./term/color.js');
  const ce = await loadColors(colorWanted(!!stderr.isTTY, env, argv.includes('--no-color') ? false : undefined), env);
  const label = ce.red('error:');
  if (err instanceof UnknownCommand || isCommanderError(err)) {
    // commander's messages start with "error: " and end a suggestion on a line of its own
    const text = err.message.replace(/^error: /, '').replace(/\n\(Did you mean (.+)\?\)$/, ' (did you mean $1?)');
    stderr.write(`${label} ${text}\n`);
    return ExitCode.usage;
  }
  // the message may quote the server: made safe on a terminal
  const { terminalSafe } = await import('./term/terminal-safe.js');
  const message = stderr.isTTY ? terminalSafe(describeError(err)) : describeError(err);
  stderr.write(`${label} ${message}\n`);
  if (hint) stderr.write(`${hint}\n`);
  if (err instanceof UsageError) {
    // nothing was sent
  } else if (readEnv(env, 'SVC_DEBUG') && err instanceof Error && err.stack) {
    stderr.write(`${err.stack}\n`);
  }
  return exitCodeFor(err);
}
