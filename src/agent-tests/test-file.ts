// The test files of `svc agents test` (docs/agent-tests.md, docs/agent-tests.schema.json): YAML or JSON, a list
// of cases, each a sequence of user turns (text, or an audio file) with expectations per turn. Read and checked
// whole before any connection is opened: a malformed file is a UsageError (exit 2) naming the file and the path
// inside it.
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';

export interface ToolExpectation {
  name: string;
  /** every key given must be equal in the call's arguments (deep, partial for nested objects) */
  arguments?: Record<string, unknown>;
  /** a JSON Schema the call's arguments must satisfy */
  arguments_schema?: Record<string, unknown>;
}

export interface TurnExpectation {
  reply_contains?: string[];
  reply_not_contains?: string[];
  reply_matches?: RegExp[];
  tool_called?: ToolExpectation[];
  no_tool_call?: boolean;
  within_seconds?: number;
}

export interface TestTurn {
  /** what the user says, as text */
  user?: string;
  /** what the user says, as an audio file (absolute path) */
  audio?: string;
  expect: TurnExpectation;
}

export interface TestCase {
  name: string;
  /** the file the case comes from */
  file: string;
  /** scripted tool results: tool name → the JSON (or text) answered to every call of it */
  tools: Record<string, unknown>;
  turns: TestTurn[];
}

const LIMITS = { cases: 500, turns: 50, text: 20_000, withinSeconds: 600 };
const CASE_KEYS = ['name', 'tools', 'turns'];
const TURN_KEYS = ['user', 'audio', 'expect'];
const EXPECT_KEYS = [
  'reply_contains',
  'reply_not_contains',
  'reply_matches',
  'tool_called',
  'no_tool_call',
  'within_seconds',
];

type Json = Record<string, unknown>;

export class FileProblem {
  /** every case name of the file, of cases with other problems too: a duplicate is reported with them */
  readonly caseNames: string[] = [];
  constructor(
    readonly file: string,
    readonly problems: string[] = [],
  ) {}
  add(path: string, what: string): void {
    this.problems.push(`${path}: ${what}`);
  }
}

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Read every test file; all problems of all files are reported at once (exit 2), after `before` (the agent file's),
 * with every arguments_schema that `schemaProblem` says does not compile.
 */
export async function readTestFiles(
  paths: string[],
  opts: { before?: string[]; schemaProblem?: (schema: Json) => Promise<string | undefined> } = {},
): Promise<TestCase[]> {
  const cases: TestCase[] = [];
  const report: string[] = [...(opts.before ?? [])];
  const seen = new Map<string, string>();
  for (const path of paths) {
    const p = new FileProblem(path);
    const doc = await parseDocument(path, p);
    if (doc !== undefined) cases.push(...checkSuite(doc, p));
    report.push(...p.problems.map((x) => `${path}: ${x}`));
    for (const name of p.caseNames) {
      const where = seen.get(name);
      if (where === path) report.push(`${path}: case "${name}" is there twice: case names must be unique`);
      else if (where !== undefined)
        report.push(`${path}: case "${name}" is also in ${where}: case names must be unique`);
      seen.set(name, path);
    }
  }
  if (opts.schemaProblem) report.push(...(await schemaProblems(cases, opts.schemaProblem)));
  refuseProblems('agent test file', report);
  if (cases.length === 0) throw new UsageError(`no test cases in ${paths.join(', ')}`);
  return cases;
}

/** Each tool expectation whose arguments_schema does not compile, named by file, case, turn and tool. */
async function schemaProblems(
  cases: TestCase[],
  problem: (schema: Json) => Promise<string | undefined>,
): Promise<string[]> {
  const out: string[] = [];
  for (const c of cases)
    for (const [i, t] of c.turns.entries())
      for (const want of t.expect.tool_called ?? []) {
        const why = want.arguments_schema && (await problem(want.arguments_schema));
        if (why)
          out.push(`${c.file}: case "${c.name}", turn ${i + 1}: tool_called ${want.name}: arguments_schema is ${why}`);
      }
  return out;
}

/** Every problem found in the files (the first 20 listed), as one usage error (exit 2) naming what they are. */
export function refuseProblems(what: string, report: string[]): void {
  if (report.length)
    throw new UsageError(
      `malformed ${what}${report.length > 1 ? 's' : ''}:\n  ` +
        `${report.slice(0, 20).join('\n  ')}${report.length > 20 ? `\n  … and ${report.length - 20} more` : ''}`,
    );
}

export async function parseDocument(path: string, p: FileProblem): Promise<unknown> {
  let text: string;
  try {
    if (statSync(path).isDirectory())
      return (p.add('file', 'is a directory; give test files (YAML or JSON)'), undefined);
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return (p.add('file', e.code === 'ENOENT' ? 'no such file' : e.message), undefined);
  }
  if (/\.json$/i.test(path) || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch (err) {
      return (p.add('JSON', (err as Error).message), undefined);
    }
  }
  const { parse } = await import('yaml');
  try {
    return parse(text, { maxAliasCount: 100 });
  } catch (err) {
    return (p.add('YAML', (err as Error).message.split('\n')[0]!), undefined);
  }
}

function checkSuite(doc: unknown, p: FileProblem): TestCase[] {
  const list = Array.isArray(doc) ? doc : isObject(doc) ? doc.cases : undefined;
  if (!Array.isArray(list))
    return (p.add('cases', 'required: a list of test cases (or the file itself is that list)'), []);
  if (isObject(doc))
    for (const k of Object.keys(doc)) if (k !== 'cases' && k !== '$schema') p.add(k, 'unknown key (allowed: cases)');
  if (list.length > LIMITS.cases) p.add('cases', `${list.length} cases: at most ${LIMITS.cases} per file`);
  const base = dirname(resolve(p.file));
  return list.flatMap((c, i) => {
    const got = checkCase(c, `cases[${i}]`, p, base);
    return got ? [got] : [];
  });
}

export function unknownKeys(o: Json, allowed: string[], path: string, p: FileProblem): void {
  for (const k of Object.keys(o))
    if (!allowed.includes(k)) p.add(`${path}.${k}`, `unknown key (allowed: ${allowed.join(', ')})`);
}

function checkCase(c: unknown, path: string, p: FileProblem, base: string): TestCase | undefined {
  if (!isObject(c)) return (p.add(path, 'must be an object with name and turns'), undefined);
  unknownKeys(c, CASE_KEYS, path, p);
  const before = p.problems.length;
  if (typeof c.name !== 'string' || !c.name.trim()) p.add(`${path}.name`, 'required: a non-empty string');
  const name = typeof c.name === 'string' ? c.name.trim() : '';
  if (name) p.caseNames.push(name);
  const tools = c.tools ?? {};
  if (!isObject(tools)) p.add(`${path}.tools`, 'must be an object: tool name → the result to answer');
  if (!Array.isArray(c.turns) || c.turns.length === 0) p.add(`${path}.turns`, 'required: a list of at least one turn');
  else if (c.turns.length > LIMITS.turns) p.add(`${path}.turns`, `${c.turns.length} turns: at most ${LIMITS.turns}`);
  const turns = Array.isArray(c.turns) ? c.turns.map((t, i) => checkTurn(t, `${path}.turns[${i}]`, p, base)) : [];
  if (p.problems.length > before) return undefined;
  return { name, file: p.file, tools: tools as Record<string, unknown>, turns: turns as TestTurn[] };
}

function checkTurn(t: unknown, path: string, p: FileProblem, base: string): TestTurn | undefined {
  if (!isObject(t)) return (p.add(path, 'must be an object with user (text) or audio (a file), and expect'), undefined);
  unknownKeys(t, TURN_KEYS, path, p);
  const turn: TestTurn = { expect: {} };
  if ((t.user === undefined) === (t.audio === undefined))
    p.add(path, 'give exactly one of user (text) or audio (a file)');
  if (t.user !== undefined) {
    if (typeof t.user !== 'string' || !t.user.trim()) p.add(`${path}.user`, 'must be non-empty text');
    else if (t.user.length > LIMITS.text) p.add(`${path}.user`, `${t.user.length} characters: at most ${LIMITS.text}`);
    else turn.user = t.user;
  }
  if (t.audio !== undefined) {
    if (typeof t.audio !== 'string' || !t.audio)
      p.add(`${path}.audio`, 'must be the path of an audio file (relative to the test file)');
    else {
      const file = resolve(base, t.audio);
      let ok = false;
      try {
        ok = statSync(file).isFile();
      } catch {
        // reported below
      }
      if (!ok) p.add(`${path}.audio`, `${t.audio}: no such file (looked for ${file})`);
      turn.audio = file;
    }
  }
  if (t.expect !== undefined) turn.expect = checkExpect(t.expect, `${path}.expect`, p);
  return turn;
}

export const strings = (v: unknown): string[] | undefined =>
  typeof v === 'string' ? [v] : Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;

function checkExpect(e: unknown, path: string, p: FileProblem): TurnExpectation {
  const out: TurnExpectation = {};
  if (!isObject(e)) return (p.add(path, 'must be an object of expectations'), out);
  unknownKeys(e, EXPECT_KEYS, path, p);
  for (const k of ['reply_contains', 'reply_not_contains'] as const) {
    if (e[k] === undefined) continue;
    const list = strings(e[k]);
    if (!list || list.some((s) => !s)) p.add(`${path}.${k}`, 'must be a non-empty string or a list of them');
    else out[k] = list;
  }
  if (e.reply_matches !== undefined) {
    const list = strings(e.reply_matches);
    if (!list)
      p.add(`${path}.reply_matches`, 'must be a regular expression (a string, "/…/flags" for flags) or a list of them');
    else
      out.reply_matches = list.flatMap((src, i) => {
        const m = /^\/(.*)\/([a-z]*)$/s.exec(src);
        try {
          return [m ? new RegExp(m[1]!, m[2]) : new RegExp(src)];
        } catch (err) {
          p.add(`${path}.reply_matches${list.length > 1 ? `[${i}]` : ''}`, `${(err as Error).message}`);
          return [];
        }
      });
  }
  if (e.tool_called !== undefined) {
    const list = Array.isArray(e.tool_called) ? e.tool_called : [e.tool_called];
    out.tool_called = list.flatMap((x, i) => {
      const at = `${path}.tool_called${Array.isArray(e.tool_called) ? `[${i}]` : ''}`;
      if (typeof x === 'string' && x) return [{ name: x }];
      if (!isObject(x) || typeof x.name !== 'string' || !x.name)
        return (p.add(at, 'must be a tool name, or {name, arguments?, arguments_schema?}'), []);
      unknownKeys(x, ['name', 'arguments', 'arguments_schema'], at, p);
      if (x.arguments !== undefined && !isObject(x.arguments))
        p.add(`${at}.arguments`, 'must be an object (the arguments that must match)');
      if (x.arguments_schema !== undefined && !isObject(x.arguments_schema))
        p.add(`${at}.arguments_schema`, 'must be a JSON Schema object');
      return [x as unknown as ToolExpectation];
    });
  }
  if (e.no_tool_call !== undefined) {
    if (typeof e.no_tool_call !== 'boolean') p.add(`${path}.no_tool_call`, 'must be true or false');
    else out.no_tool_call = e.no_tool_call;
    if (e.no_tool_call === true && out.tool_called?.length)
      p.add(`${path}.no_tool_call`, 'contradicts tool_called in the same turn');
  }
  if (e.within_seconds !== undefined) {
    const n = e.within_seconds;
    if (typeof n !== 'number' || !(n > 0) || n > LIMITS.withinSeconds)
      p.add(`${path}.within_seconds`, `must be a number of seconds, more than 0 and at most ${LIMITS.withinSeconds}`);
    else out.within_seconds = n;
  }
  return out;
}
