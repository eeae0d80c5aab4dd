// Every example svc shows a reader: each line that runs svc in a shell block of the README, the emulator's README and
// docs/*.md (docs/commands.md is generated from the help, so its examples are the help's), and each `examples` entry
// of every command's --help. test/docs/examples.test.ts runs them; this module finds and sorts them.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadCommandTree } from './command-tree.js';
import { ROOT } from './files.js';

export interface Example {
  /** where it is shown: `README.md:12` or `svc files list --help` */
  where: string;
  /** the examples shown together (a block of a page, a command's help), which run in order in one folder */
  group: string;
  /** the line as written (continuation lines joined) */
  text: string;
  /** the test that runs its block as one script (`<!-- example: run by FILE -->` above the block) */
  runBy?: string;
}

const SHELL_FENCES = new Set(['sh', 'bash', 'shell', 'console']);
/** a line that runs svc: svc as a command word, after an assignment, a pipe or a list operator */
const RUNS_SVC = /(^|[|;&(]\s*|^(?:[A-Z_]+=\S*\s+)+)svc\s/;

/** The pages whose shell blocks are examples. */
export function examplePages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'commands.md' && f !== 'DEVELOPING.md')
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', 'packages/emulator/README.md', ...docs];
}

/** Each line running svc in a page's shell blocks; an unlabelled block counts when every line of it runs svc. */
export function pageExamples(page: string): Example[] {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
  const out: Example[] = [];
  let fence: string | undefined;
  let block: { line: number; text: string }[] = [];
  let runBy: string | undefined;
  lines.forEach((line, i) => {
    const open = /^\s*```(\S*)\s*$/.exec(line);
    if (open && fence === undefined) {
      fence = open[1]!;
      block = [];
      runBy = /^<!-- example: run by (\S+) -->$/.exec(lines[i - 1] ?? '')?.[1];
      return;
    }
    if (open) {
      out.push(...blockExamples(page, fence!, block).map((e) => (runBy ? { ...e, runBy } : e)));
      fence = undefined;
      return;
    }
    if (fence !== undefined) block.push({ line: i + 1, text: line });
  });
  return out;
}

function blockExamples(page: string, fence: string, block: { line: number; text: string }[]): Example[] {
  const group = `${page}:${block[0]?.line ?? 0}`;
  const logical: { line: number; text: string }[] = [];
  for (const { line, text } of block) {
    const last = logical.at(-1);
    if (last?.text.endsWith('\\')) last.text = `${last.text.slice(0, -1).trimEnd()} ${text.trim()}`;
    else logical.push({ line, text });
  }
  const running = logical.filter((l) => RUNS_SVC.test(l.text.trim()));
  const code = logical.filter((l) => l.text.trim() && !l.text.trim().startsWith('#'));
  if (!SHELL_FENCES.has(fence) && !(fence === '' && code.length > 0 && running.length === code.length)) return [];
  return running.map((l) => ({ where: `${page}:${l.line}`, group, text: l.text.trim() }));
}

/** Every --help example, by command. */
export async function helpExamples(): Promise<Example[]> {
  const tree = await loadCommandTree();
  return tree.flatMap(({ words, spec }) =>
    (spec?.examples ?? []).map((text) => ({ where: `svc ${words} --help`, group: words, text })),
  );
}

export type Plan =
  | { kind: 'run'; argv: string[]; env: Record<string, string>; stdinFile?: string; stdoutFile?: string }
  | { kind: 'shell' }
  | { kind: 'skip'; reason: string };

/** A trailing comment (`# …` after a space, outside quotes) dropped. */
function withoutComment(text: string): string {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) return text.slice(0, i).trimEnd();
  }
  return text;
}

/**
 * The words of a simple command as a shell splits them (quotes, backslashes), or undefined when the line needs a
 * shell: a pipe, a list, a substitution, a variable, a glob, a redirection other than one `< FILE` / `> FILE`.
 */
function shellWords(text: string): { words: string[]; stdinFile?: string; stdoutFile?: string } | undefined {
  const words: string[] = [];
  let word: string | undefined;
  let redirect: '<' | '>' | undefined;
  let stdinFile: string | undefined;
  let stdoutFile: string | undefined;
  const end = () => {
    if (word === undefined) return;
    if (redirect === '<') stdinFile = word;
    else if (redirect === '>') stdoutFile = word;
    else words.push(word);
    word = undefined;
    redirect = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (/\s/.test(c)) end();
    else if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) return undefined;
      word = (word ?? '') + text.slice(i + 1, close);
      i = close;
    } else if (c === '"') {
      let s = '';
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '$' || text[i] === '`') return undefined;
        if (text[i] === '\\' && /["\\$`]/.test(text[i + 1] ?? '')) i++;
        s += text[i];
      }
      if (i >= text.length) return undefined;
      word = (word ?? '') + s;
    } else if (c === '\\') {
      word = (word ?? '') + (text[++i] ?? '');
    } else if (c === '<' || c === '>') {
      if (word !== undefined || redirect || text[i + 1] === c || text[i + 1] === '(' || text[i + 1] === '&')
        return undefined;
      redirect = c;
    } else if ('|&;()`$*?~'.includes(c)) return undefined;
    else word = (word ?? '') + c;
  }
  end();
  // a device (`< /dev/zero`) or a file outside the example's folder: the shell's business
  if (redirect || stdinFile?.startsWith('/') || stdoutFile?.startsWith('/')) return undefined;
  return { words, stdinFile, stdoutFile };
}

/** How an example is run: in-process (a simple svc command), in a shell, or not at all (why). */
export function planExample(text: string, skips: [RegExp, string][]): Plan {
  for (const [re, reason] of skips) if (re.test(text)) return { kind: 'skip', reason };
  const parsed = shellWords(withoutComment(text));
  if (!parsed) return { kind: 'shell' };
  const env: Record<string, string> = {};
  let words = parsed.words;
  while (words[0] && /^[A-Z_]+=/.test(words[0])) {
    const [name, ...value] = words[0].split('=');
    env[name!] = value.join('=');
    words = words.slice(1);
  }
  if (words[0] !== 'svc') return { kind: 'shell' };
  return { kind: 'run', argv: words.slice(1), env, stdinFile: parsed.stdinFile, stdoutFile: parsed.stdoutFile };
}

/**
 * The flags of a command line that its command does not take (its own, the global ones, -h/--help): a check for
 * examples that cannot run here (a server), beside `--help`, which runs each given flag's check.
 */
export async function unknownFlags(argv: string[]): Promise<string[]> {
  const { GLOBAL_FLAGS } = await import('../../src/core/global-flags.js');
  const tree = await loadCommandTree();
  let command: (typeof tree)[number] | undefined;
  for (let n = argv.length; n > 0 && !command; n--) {
    const words = argv
      .filter((a) => !a.startsWith('-'))
      .slice(0, n)
      .join(' ');
    command = tree.find((c) => c.words === words && c.spec);
  }
  if (!command) return [`no command in: ${argv.join(' ')}`];
  const known = new Set(['-h', '--help']);
  for (const { flags } of [...(command.spec!.options ?? []), ...GLOBAL_FLAGS])
    for (const m of flags.matchAll(/(--?[\w-]+)/g)) known.add(m[1]!);
  const until = argv.indexOf('--');
  return (until < 0 ? argv : argv.slice(0, until))
    .filter((a) => /^--?[A-Za-z]/.test(a))
    .map((a) => a.split('=')[0]!)
    .filter((flag) => !known.has(flag));
}
