// What the agent commands share: reading @FILE and tool files, the limit checks (all before sending),
// voice id normalisation, the human view of an agent, and the difference shown by `push`.
import { readInputText } from '../../core/input-file.js';
import { UsageError } from '../../core/errors.js';
import type { OptionSpec } from '../../core/option-spec.js';
import { fail, integer, maxLength, number, oneOf, repeatable } from '../../core/validate.js';
import { toolCmdFlag } from '../../cmdutil/flag-sets.js';
import { toolCmdParser } from '../../cmdutil/local-tools.js';
import { REPORT_FORMATS } from '../../agent-tests/report.js';
import type { Output } from '../../term/output.js';
import { agentLimits, type Agent, type AgentField, type AgentInput } from '../../endpoints/agents.js';
import { normalizeVoiceId, voiceAllowed, voiceOption } from '../../endpoints/voices.js';
import { jsonErrorPlace } from './project-files.js';
import { SCHEMAS } from 'svc-formats/api-facts';

const TOOL_KINDS = SCHEMAS.ToolKind.$.enum;

function readFileFor(flag: string, path: string): string {
  return readInputText(flag, path);
}

/** `TEXT` as is, `@FILE` read from the file. */
export function textOrFile(flag: string, value: string): string {
  return value.startsWith('@') ? readFileFor(flag, value.slice(1)) : value;
}

/** Each --tool file holds one tool object or an array of them. */
export function readToolFiles(files: string[]): unknown[] {
  const tools: unknown[] = [];
  for (const f of files) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileFor('--tool', f));
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`--tool: ${f} is not valid JSON: ${(err as Error).message}`);
    }
    if (Array.isArray(parsed)) tools.push(...parsed);
    else tools.push(parsed);
  }
  return tools;
}

/** Read an agent JSON file (`-` = stdin text given by the caller); accepts `{agent: {...}}` too. */
export function parseAgentJson(text: string, source: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${source} is not valid JSON (${jsonErrorPlace(text, err)})`);
  }
  if (
    parsed &&
    typeof parsed === 'object' &&
    !Array.isArray(parsed) &&
    typeof (parsed as { agent?: unknown }).agent === 'object' &&
    (parsed as { agent?: unknown }).agent !== null
  ) {
    parsed = (parsed as { agent: unknown }).agent;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError(`${source}: expected a JSON object describing one agent`);
  return parsed as Record<string, unknown>;
}

export function readAgentFile(path: string, flag = '-f'): Record<string, unknown> {
  return parseAgentJson(readFileFor(flag, path), flag === '-f' ? path : `${flag} ${path}`);
}

/** How a field is named in messages: the flag when it came from flags, `FILE: field` from a file. */
export type Namer = (
  field:
    | 'name'
    | 'instructions'
    | 'tools'
    | 'collection_ids'
    | 'voice'
    | 'voice_id'
    | 'vad_threshold'
    | 'vad_silence_duration_ms',
) => string;

export const flagNamer: Namer = (f) =>
  ({
    name: '--name',
    instructions: '--instructions',
    tools: '--tool',
    collection_ids: '--collection',
    voice: '--voice',
    voice_id: '--voice',
    vad_threshold: '--vad-threshold',
    vad_silence_duration_ms: '--vad-silence-ms',
  })[f];

export const fileNamer =
  (file: string): Namer =>
  (f) =>
    `${file}: ${f === 'voice_id' || f === 'vad_threshold' || f === 'vad_silence_duration_ms' ? `voice.${f}` : f}`;

const len = (s: string) => [...s].length;

/** Every documented limit of the agent fields given (absent fields are not checked). Normalises voice ids. */
export function checkAgentInput(input: AgentInput, name: Namer): AgentInput {
  const limits = agentLimits();
  const out: AgentInput = { ...input };
  if (input.name !== undefined) {
    const v = input.name;
    if (typeof v !== 'string' || v.trim() === '') fail(name('name'), v, 'a non-empty text');
    if (len(v) > limits.name)
      fail(name('name'), `${v.slice(0, 20)}…`, `at most ${limits.name} characters (got ${len(v)})`);
  }
  if (input.instructions !== undefined && input.instructions !== null) {
    const v = input.instructions;
    if (typeof v !== 'string') fail(name('instructions'), v, 'a text');
    if (len(v) > limits.instructions)
      fail(
        name('instructions'),
        `${v.slice(0, 20)}…`,
        `at most ${limits.instructions.toLocaleString('en-US')} characters (got ` +
          `${len(v).toLocaleString('en-US')})`,
      );
  }
  if (input.tools !== undefined && input.tools !== null) checkAgentTools(input.tools, name);
  if (input.collection_ids !== undefined && input.collection_ids !== null) {
    const v = input.collection_ids;
    if (!Array.isArray(v) || v.some((c) => typeof c !== 'string' || c === ''))
      fail(name('collection_ids'), v, 'a list of collection ids');
    if (v.length > limits.collections)
      fail(name('collection_ids'), `${v.length} collections`, `at most ${limits.collections} collections per agent`);
  }
  if (input.voice !== undefined && input.voice !== null) out.voice = checkedVoice(input.voice, name);
  return out;
}

/** The agent's tools: at most the limit, each of a known kind; a function tool names its function. */
function checkAgentTools(v: unknown, name: Namer): void {
  const limits = agentLimits();
  if (!Array.isArray(v)) fail(name('tools'), v, 'a list of tools');
  if (v.length > limits.tools) fail(name('tools'), `${v.length} tools`, `at most ${limits.tools} tools per agent`);
  v.forEach((t, i) => {
    const tool = t as Record<string, unknown> | null;
    if (!tool || typeof tool !== 'object' || !(TOOL_KINDS as readonly string[]).includes(tool.type as string)) {
      fail(
        name('tools'),
        `tool ${i + 1} ${JSON.stringify(t)?.slice(0, 60)}`,
        `an object whose type is one of ${TOOL_KINDS.join(', ')}`,
      );
    }
    if (tool.type === 'function') {
      const fn = tool.function as Record<string, unknown> | undefined;
      if (!fn || typeof fn.name !== 'string' || fn.name === '')
        fail(
          name('tools'),
          `tool ${i + 1} ${JSON.stringify(t).slice(0, 60)}`,
          'a function tool {type: "function", function: {name, description, parameters}}',
        );
      if (
        fn.parameters !== undefined &&
        (typeof fn.parameters !== 'object' || fn.parameters === null || Array.isArray(fn.parameters))
      ) {
        fail(name('tools'), `tool ${i + 1} (${fn.name}) parameters`, 'a JSON-schema object');
      }
    }
  });
}

/** The agent's voice settings checked (VAD ranges), its voice id normalised. */
function checkedVoice(voiceInput: NonNullable<AgentInput['voice']>, name: Namer): Record<string, unknown> {
  const limits = agentLimits();
  const v = voiceInput as Record<string, unknown>;
  if (typeof v !== 'object' || Array.isArray(v))
    fail(name('voice'), v, 'an object {voice_id, vad_threshold, vad_silence_duration_ms}');
  const voice: Record<string, unknown> = { ...v };
  if (v.voice_id !== undefined && v.voice_id !== null) {
    const id = typeof v.voice_id === 'string' ? normalizeVoiceId(v.voice_id) : undefined;
    if (id === undefined) fail(name('voice_id'), v.voice_id, voiceAllowed());
    voice.voice_id = id;
  }
  const [tMin, tMax] = limits.vadThreshold;
  if (v.vad_threshold !== undefined && v.vad_threshold !== null) {
    const t = v.vad_threshold;
    if (typeof t !== 'number' || !Number.isFinite(t) || t < tMin || t > tMax)
      fail(name('vad_threshold'), t, `a number from ${tMin} to ${tMax}`);
  }
  const [sMin, sMax] = limits.vadSilenceMs;
  if (v.vad_silence_duration_ms !== undefined && v.vad_silence_duration_ms !== null) {
    const s = v.vad_silence_duration_ms;
    if (typeof s !== 'number' || !Number.isInteger(s) || s < sMin || s > sMax)
      fail(
        name('vad_silence_duration_ms'),
        s,
        `a whole number of milliseconds from ${sMin} to ${sMax.toLocaleString('en-US')}`,
      );
  }
  return voice;
}

/** The human view of one agent (stdout); `more` rows follow in the same aligned column. */
export function printAgent(out: Output, a: Agent, more: [string, unknown][] = []): void {
  const voice = (a.voice ?? null) as Record<string, unknown> | null;
  const tools = Array.isArray(a.tools) ? a.tools : [];
  const toolNames = tools.map((t) => {
    const tool = t as Record<string, any>;
    return tool?.type === 'function' ? `function:${tool.function?.name ?? tool.name ?? '?'}` : String(tool?.type);
  });
  const instr = typeof a.instructions === 'string' ? a.instructions : null;
  const firstLine = instr === null ? null : instr.split('\n')[0]!.slice(0, 80);
  out.details([
    ['agent_id', a.agent_id],
    ['name', a.name],
    ['voice', voice?.voice_id ?? null],
    ['vad_threshold', voice?.vad_threshold ?? null],
    ['vad_silence_duration_ms', voice?.vad_silence_duration_ms ?? null],
    [
      'instructions',
      instr === null
        ? null
        : `${firstLine}${instr.length > (firstLine?.length ?? 0) ? '…' : ''} (${[...instr].length} characters)`,
    ],
    ['tools', toolNames.length ? `${toolNames.length}: ${toolNames.join(', ')}` : null],
    ['collection_ids', Array.isArray(a.collection_ids) && a.collection_ids.length ? a.collection_ids.join(', ') : null],
    ['created_at', a.created_at],
    ['updated_at', a.updated_at],
    ...more,
  ]);
}

// ---------------------------------------------------------------------------------------------------------
// Agents as code: the comparable form of a field, and a readable difference.

/** Treat the "none" forms alike: null, absent, and an empty list or object. Object keys are sorted. */
export function canonical(field: AgentField, v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if ((field === 'tools' || field === 'collection_ids') && Array.isArray(v) && v.length === 0) return null;
  if (field === 'voice' && typeof v === 'object' && v !== null) {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined && x !== null);
    if (entries.length === 0) return null;
  }
  return sortKeys(v);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v as Record<string, unknown>)
        .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

export function sameValue(field: AgentField, a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(field, a)) === JSON.stringify(canonical(field, b));
}

function asLines(v: unknown): string[] {
  if (v === null || v === undefined) return ['(none)'];
  if (typeof v === 'string') return v.split('\n');
  return JSON.stringify(sortKeys(v), null, 2).split('\n');
}

/** The difference of one field for stderr: `~ field` then unified -/+ hunks with two lines of context (the `diff`
 * library, Myers' algorithm: one changed line in a 2,000-line text is a small hunk, not a rewrite). */
export async function describeChange(
  field: string,
  before: unknown,
  after: unknown,
  color: { red(s: string): string; green(s: string): string; bold(s: string): string; dim(s: string): string },
): Promise<string> {
  const scalar = (v: unknown) => v === null || v === undefined || typeof v !== 'object';
  const oneLine = (v: unknown) => (v === null || v === undefined ? '(none)' : JSON.stringify(v));
  if (
    scalar(before) &&
    scalar(after) &&
    !(typeof before === 'string' && before.includes('\n')) &&
    !(typeof after === 'string' && after.includes('\n'))
  ) {
    return `${color.bold(`~ ${field}`)}: ${color.red(oneLine(before))} → ${color.green(oneLine(after))}`;
  }
  const { structuredPatch } = await import('diff');
  const text = (v: unknown) => `${asLines(v).join('\n')}\n`;
  const patch = structuredPatch('before', 'after', text(before), text(after), undefined, undefined, { context: 2 });
  const lines = [color.bold(`~ ${field}`)];
  for (const hunk of patch.hunks) {
    lines.push(color.dim(`  @@ line ${hunk.oldStart} @@`));
    for (const l of hunk.lines) {
      if (l.startsWith('\\')) continue; // "\ No newline at end of file"
      const body = l.slice(1);
      lines.push(l[0] === '-' ? color.red(`  - ${body}`) : l[0] === '+' ? color.green(`  + ${body}`) : `    ${body}`);
    }
  }
  return lines.join('\n');
}

/** The document's limits of an agent's fields, for the flags below (an agents command checks them). */
const fieldLimits = agentLimits();

/** The agent's fields as flags (create and update take the same ones, with the same checks). */
export const AGENT_FIELD_OPTIONS = [
  {
    flags: '--name <name>',
    description: `agent name (at most ${fieldLimits.name} characters)`,
    parse: maxLength(fieldLimits.name),
  },
  {
    flags: '--instructions <text>',
    description:
      'system prompt, or @FILE to read it from a file ' +
      `(at most ${fieldLimits.instructions.toLocaleString('en-US')} characters)`,
  },
  voiceOption('--voice <id>', (voices) => `${voices.join(', ')}, or a custom voice id`),
  {
    flags: '--vad-threshold <n>',
    description: `voice activity threshold, ${fieldLimits.vadThreshold.join(' to ')} (lower is more sensitive)`,
    parse: number({ min: fieldLimits.vadThreshold[0], max: fieldLimits.vadThreshold[1] }),
  },
  {
    flags: '--vad-silence-ms <ms>',
    description: `silence before a turn ends, ${fieldLimits.vadSilenceMs.join(' to ')} ms`,
    parse: integer({ min: fieldLimits.vadSilenceMs[0], max: fieldLimits.vadSilenceMs[1] }),
  },
  {
    flags: '--tool <file>',
    description: `JSON file with one tool or an array of tools (repeatable; at most ${fieldLimits.tools} tools)`,
    parse: repeatable(),
  },
  {
    flags: '--collection <id>',
    description: `knowledge-base collection id for file search (repeatable; at most ${fieldLimits.collections})`,
    parse: repeatable(undefined, { max: fieldLimits.collections }),
  },
] as const satisfies readonly OptionSpec[];

/** A local agent definition, checked like `agents push` checks it. */
export function localAgent(path: string): Agent {
  const raw = readAgentFile(path, '--agent-file');
  const checked = checkAgentInput(raw, fileNamer(`--agent-file ${path}`));
  return { agent_id: typeof raw.agent_id === 'string' ? raw.agent_id : 'local', ...raw, ...checked } as Agent;
}

/**
 * The arguments of a command that runs files against an agent (`agents test`, `agents simulate`): the agent id then
 * the files, or with --agent-file only files. The local agent's problems are returned, not thrown, so that they are
 * listed with the files' problems, all at once, before any connection.
 */
export function agentArguments(
  first: unknown,
  rest: unknown,
  agentFile: string | undefined,
  say: { noun: string; command: string; example: string },
): { agentId?: string; files: string[]; local?: Agent; agentProblems: string[] } {
  const positional = [first as string, ...((rest as string[] | undefined) ?? [])].filter((x) => x !== undefined);
  const agentId = agentFile ? undefined : positional[0];
  const files = agentFile ? positional : positional.slice(1);
  const { noun } = say;
  if (files.length === 0)
    throw new UsageError(
      agentFile
        ? `no ${noun}: --agent-file ${agentFile} is the agent; give the ${noun}s (YAML or JSON) after ` +
            `it: ${say.command} --agent-file ${agentFile} ${say.example}`
        : positional.length
          ? `no ${noun}: give the agent id ${positional[0]}, then at least one ${noun} (YAML or JSON)`
          : `no agent and no ${noun}: give the agent id, then ${noun}s (or --agent-file FILE and ${noun}s)`,
    );
  const agentProblems: string[] = [];
  let local: Agent | undefined;
  try {
    local = agentFile ? localAgent(agentFile) : undefined;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    agentProblems.push(err.message);
  }
  return { agentId, files, local, agentProblems };
}

/** --tool-cmd and --tool-timeout: how the tool calls of an agent under test are answered (test, simulate). */
export const AGENT_TOOL_OPTIONS = [
  toolCmdFlag(toolCmdParser),
  {
    flags: '--tool-timeout <seconds>',
    description: 'time limit of one tool command (1-600, default 60)',
    parse: number({ min: 1, max: 600 }),
  },
] as const satisfies readonly OptionSpec[];

/** --format: the report of a run of agent cases or calls, a line per `unit` or TAP or JUnit XML. */
export function reportFormatOption(unit: string, extra = '') {
  return {
    flags: '--format <format>',
    description: `report on stdout: text (a line per ${unit}${extra}), tap (TAP 14) or junit (JUnit XML)`,
    parse: oneOf(REPORT_FORMATS),
    choices: REPORT_FORMATS,
  } as const satisfies OptionSpec;
}

/**
 * The arguments of a command that runs files against an agent: the agent id, then the files; not required for
 * commander (with --agent-file every argument is a file), agentArguments() says what is missing.
 */
export function agentFileArgs(files: { name: string; noun: string }) {
  return [
    { name: 'agent', description: 'agent id (leave out with --agent-file)' },
    { name: files.name, description: `${files.noun}s (YAML or JSON)`, variadic: true },
  ];
}

/** --agent-file and -P: a local agent definition instead of a stored one, and how many sessions at once. */
export function agentRunOptions(doing: string, noun: string, unit: string) {
  return [
    {
      flags: '--agent-file <path>',
      description:
        `${doing} a local agent definition (the JSON of \`agents pull\`) instead of a stored agent; every ` +
        `argument is then a ${noun}`,
    },
    {
      flags: '-P, --parallel <n>',
      description: `${unit}s run at once, each in its own session (1-16, default 1)`,
      parse: integer({ min: 1, max: 16 }),
    },
  ] as const satisfies readonly OptionSpec[];
}
