// The flag sets several commands share, defined once: model, sampling, output, tools, search, audio. Each row
// names the body field it fills (a request-table row, core/request-table.ts) and carries its help group, so
// `--help` can show the sets under their own headings. Commands compose them: `...sampling('temperature', 'topP')`.
import type { Context } from '../runtime/context.js';
import { listedRow, type RequestRow } from '../core/request-table.js';
import { apiFacts } from '../core/lazy-api-facts.js';
import type { OptionSpec, OptionValues } from '../core/option-spec.js';
import { readToolFile, type ToolParseOptions } from './tool-file.js';
import { DEFAULT_MCP_MAX_RESULT_KIB, mcpParser } from './mcp-command.js';
import { UsageError } from '../core/errors.js';
import { type FlagParser, fail, httpUrl, integer, isoDate, keyValue, number, repeatable } from '../core/validate.js';

export const FLAG_GROUPS = {
  model: 'Model',
  sampling: 'Sampling',
  output: 'Output',
  tools: 'Tools',
  search: 'Search',
  audio: 'Audio',
  template: 'Template',
  input: 'Input',
} as const;

/** The language model used when neither -m nor the profile names one. */
export const DEFAULT_LANGUAGE_MODEL = 'svc-latest';

// ---- model
/** `-m, --model <id>`; `about` says what the model is for and which default applies. */
export function modelFlag<const Extra extends Partial<RequestRow> = Record<never, never>>(
  about = `model id or alias (default: the profile's model, else ${DEFAULT_LANGUAGE_MODEL})`,
  extra: Extra = {} as Extra,
) {
  const row = { flags: '-m, --model <id>', description: about, group: FLAG_GROUPS.model, reaches: ['model'] } as const;
  return { ...row, ...extra } satisfies RequestRow;
}

/** -m, else the profile's model, else the default language model. */
export function resolveModel(ctx: Context, flag: string | undefined, fallback?: string): string {
  return flag ?? fallback ?? ctx.config().model ?? DEFAULT_LANGUAGE_MODEL;
}

// ---- templates (cmdutil/templates.ts)

export const TEMPLATE_FLAGS = [
  {
    flags: '-t, --template <name>',
    description: 'start from a saved template (svc templates list): its system prompt, model, schema, options',
    group: FLAG_GROUPS.template,
  },
  {
    flags: '--var <name=value>',
    description: 'a value for {{name}} in the template (repeatable)',
    parse: keyValue(),
    group: FLAG_GROUPS.template,
  },
  {
    flags: '-y, --yes',
    description:
      'with -t: use a template that runs a program or reads a file outside this folder without asking (scripts)',
    group: FLAG_GROUPS.template,
  },
] as const satisfies readonly RequestRow[];
/** -y of TEMPLATE_FLAGS, for a command that takes a saved template under a flag of its own (batch -t). */
export const TEMPLATE_YES = TEMPLATE_FLAGS[2];

// ---- sampling
const S = FLAG_GROUPS.sampling;
export const SAMPLING = {
  temperature: {
    flags: '--temperature <n>',
    description: 'sampling temperature (0-2, default 1)',
    parse: number({ min: 0, max: 2 }),
    group: S,
    field: 'temperature',
  },
  topP: {
    flags: '--top-p <n>',
    description: 'nucleus sampling (greater than 0, at most 1)',
    parse: number({ min: 0, minExclusive: true, max: 1 }),
    group: S,
    field: 'top_p',
  },
  topK: {
    flags: '--top-k <n>',
    description: 'only the k most likely tokens (1 to 2147483647)',
    parse: integer({ min: 1, int32: true }),
    group: S,
    field: 'top_k',
  },
  minP: {
    flags: '--min-p <n>',
    description: 'drop tokens below min-p × the top probability (0-1)',
    parse: number({ min: 0, max: 1 }),
    group: S,
    field: 'min_p',
  },
  frequencyPenalty: {
    flags: '--frequency-penalty <n>',
    description: 'frequency penalty (-2 to 2); not for reasoning models',
    parse: number({ min: -2, max: 2 }),
    group: S,
    field: 'frequency_penalty',
  },
  presencePenalty: {
    flags: '--presence-penalty <n>',
    description: 'presence penalty (-2 to 2); not for reasoning models',
    parse: number({ min: -2, max: 2 }),
    group: S,
    field: 'presence_penalty',
  },
  seed: {
    flags: '--seed <n>',
    description: 'best-effort deterministic sampling (32-bit integer)',
    parse: integer({ int32: true }),
    group: S,
    field: 'seed',
  },
  stop: {
    flags: '--stop <sequence>',
    description: 'stop sequence (repeatable, at most 4)',
    parse: repeatable(undefined, { max: 4 }),
    group: S,
    field: 'stop',
  },
} as const satisfies Record<string, RequestRow>;

/** The named sampling rows, in the order given; `fields` renames a body field (e.g. stop → stop_sequences). */
export function sampling<const N extends readonly (keyof typeof SAMPLING)[]>(
  names: N,
  fields: Partial<Record<keyof typeof SAMPLING, string>> = {},
): { [I in keyof N]: Omit<(typeof SAMPLING)[N[I]], 'field'> & { field: string } } {
  return names.map((n) => ({ ...SAMPLING[n], field: fields[n] ?? SAMPLING[n].field })) as never;
}

// ---- output
const O = FLAG_GROUPS.output;
/** -a (cmdutil/attachments.ts) and -f (cmdutil/fragments.ts): what the prompt carries besides its words. */
export const ATTACH_FLAGS = [
  {
    flags: '-a, --attach <file|url|->',
    description: 'attach a file: text goes in the prompt, an image as an image, a document uploaded (repeatable)',
    parse: repeatable(),
    group: FLAG_GROUPS.input,
  },
  {
    flags: '--keep',
    description: 'keep the documents -a uploaded (default: deleted after the answer)',
    group: FLAG_GROUPS.input,
  },
  {
    flags: '-f, --fragment <file|url|name>',
    description: 'text put before the prompt: a file, a URL or a saved fragment (repeatable; svc fragments)',
    parse: repeatable(),
    group: FLAG_GROUPS.input,
  },
] as const satisfies readonly RequestRow[];

/** -x/--extract, --extract-last: only a fenced code block of the answer (cmdutil/answer-writer.ts). */
export const EXTRACT_FLAGS = [
  {
    flags: '-x, --extract',
    description: 'print only the first fenced code block of the answer (once it is complete)',
    group: FLAG_GROUPS.output,
  },
  {
    flags: '--extract-last',
    description: 'print only the last fenced code block of the answer',
    group: FLAG_GROUPS.output,
  },
] as const satisfies readonly RequestRow[];

/**
 * Every command that writes a file the user named: an existing file is replaced only with --force (`--clobber`, gh's
 * name, is the same flag). The check before sending is the runner's (cmdutil/command-options refuseExistingOutputs,
 * for outputPath flags) or the command's (net/download checkTarget); the writer passes `replace: force`.
 */
export function forceFlags(what = 'an existing file') {
  return [
    { flags: '-f, --force', description: `replace ${what} (never done without it; also --clobber)`, group: O },
    { flags: '--clobber', description: 'the same as --force', hidden: true, implies: { force: true } },
  ] as const satisfies readonly OptionSpec[];
}

export const OUTPUT = {
  usage: { flags: '-u, --usage', description: 'print token usage on stderr', group: O },
  /** streamed by default */
  noStream: {
    flags: '--no-stream',
    description: 'wait for the whole answer instead of streaming it',
    group: O,
    reaches: ['stream'],
  },
  /** not streamed by default */
  stream: {
    flags: '--stream',
    description: 'print the answer as it is written',
    group: O,
    field: 'stream',
  },
  logprobs: {
    flags: '--logprobs',
    description: 'return log probabilities of the output tokens',
    group: O,
    field: 'logprobs',
  },
  /** streamed answers rendered as Markdown on a terminal (cmdutil/answer-writer) */
  raw: {
    flags: '--raw',
    description: 'on a terminal, print the answer as the model wrote it (no Markdown rendering)',
    group: O,
  },
  topLogprobs: {
    flags: '--top-logprobs <n>',
    description: 'most likely tokens per position (0-8); needs --logprobs',
    parse: integer({ min: 0, max: 8 }),
    group: O,
    field: 'top_logprobs',
  },
} as const satisfies Record<string, RequestRow>;

// ---- tools
const T = FLAG_GROUPS.tools;
/**
 * `--tool FILE` (repeatable): function tools read from JSON files; the field is filled by the command (its shape
 * differs per convention).
 */
export function toolFlag(
  description = 'function tool(s) from a JSON file (repeatable; at most 128 tools)',
  parse: ToolParseOptions = {},
) {
  return {
    flags: '--tool <file>',
    description,
    parse: repeatable((raw, flag) => readToolFile(raw, flag, parse)),
    group: T,
    reaches: ['tools'],
  } as const satisfies RequestRow;
}
/**
 * `--tool-choice`: one of the request's tool_choice modes (`modes`, the document's, read when the help is shown: a
 * getter, as listedRow's) or the name of the tool to force (`forced`, as the request calls one).
 */
export function toolChoiceFlag(modes: () => readonly string[], forced = 'a function name') {
  const row = { flags: '--tool-choice <choice>', group: T, reaches: ['tool_choice'] } as const;
  return Object.defineProperty(row, 'description', {
    get: () => `${modes().join(', ')}, or ${forced} to force`,
    enumerable: true,
  }) as typeof row & { description: string };
}
export const PARALLEL_TOOL_CALLS = {
  flags: '--no-parallel-tool-calls',
  description: 'at most one tool call per answer',
  group: T,
  field: 'parallel_tool_calls',
} as const satisfies RequestRow;
/** `--mcp 'COMMAND ARGS'` (or NAME of the config key mcp.NAME): an MCP server whose tools the model may call */
export const MCP_FLAG = {
  flags: '--mcp <command>',
  description:
    "start this MCP server ('COMMAND ARGS', or NAME for the config key mcp.NAME) and offer its tools to the " +
    'model (repeatable); its calls run through it',
  parse: mcpParser,
  group: T,
} as const satisfies RequestRow;
/** what of one MCP tool result goes to the model (the rest cut, the model and stderr told) */
export const MCP_MAX_RESULT_FLAG = {
  flags: '--mcp-max-result <KiB>',
  description:
    `with --mcp: what of one tool result goes to the model, in KiB (1-65536, default ${DEFAULT_MCP_MAX_RESULT_KIB}); ` +
    'the rest is cut and the model told',
  parse: integer({ min: 1, max: 65536 }),
  group: T,
} as const satisfies RequestRow;
export const APPROVE_FLAG = {
  flags: '--approve',
  description: 'with --tool-cmd or --mcp: ask on the terminal before each tool call (a no is told to the model)',
  group: T,
} as const satisfies RequestRow;
export function toolCmdFlag<T>(parse: FlagParser<T>) {
  return {
    flags: '--tool-cmd <name=command>',
    description:
      'run COMMAND for each call of tool NAME (repeatable); arguments as JSON on stdin, its stdout is sent back',
    parse,
    group: T,
  } as const satisfies RequestRow;
}

// ---- search (search_parameters: chat completions and responses)
const Q = FLAG_GROUPS.search;
/** search_parameters' modes and source types (the document's ChatRequest and SearchSource), read when first needed */
const searchModes = () => apiFacts().SCHEMAS.ChatRequest['$.search_parameters.mode'].enum;
const searchSources = () => apiFacts().SCHEMAS.SearchSource['$.type'].enum;
export type SearchFlags = OptionValues<typeof SEARCH_ROWS>;
const SOURCES = 'search_parameters.sources';
export const SEARCH_ROWS = [
  listedRow(
    { flags: '--search <mode>', group: Q, reaches: ['search_parameters.mode'] },
    searchModes,
    (modes) => `live search: ${modes.join(', ')}`,
  ),
  {
    flags: '--search-from <date>',
    description: 'search results from this date (YYYY-MM-DD)',
    parse: isoDate(),
    group: Q,
    reaches: ['search_parameters.from_date'],
  },
  {
    flags: '--search-to <date>',
    description: 'search results up to this date (YYYY-MM-DD)',
    parse: isoDate(),
    group: Q,
    reaches: ['search_parameters.to_date'],
  },
  {
    flags: '--max-search-results <n>',
    description: 'search results to consider (1-30)',
    parse: integer({ min: 1, max: 30 }),
    group: Q,
    reaches: ['search_parameters.max_search_results'],
  },
  {
    flags: '--no-citations',
    description: 'do not return citations',
    group: Q,
    reaches: ['search_parameters.return_citations'],
  },
  listedRow(
    { flags: '--search-source <type>', group: Q, reaches: [SOURCES] },
    searchSources,
    (types) => `search source (repeatable): ${types.join(', ')}`,
    (one) => repeatable(one),
  ),
  {
    flags: '--search-country <code>',
    description: 'country for web and news search (ISO 3166-1 alpha-2)',
    parse: (raw: string, flag: string) =>
      /^[A-Za-z]{2}$/.test(raw) ? raw.toUpperCase() : fail(flag, raw, 'a two-letter country code'),
    group: Q,
    reaches: [SOURCES],
  },
  {
    flags: '--allowed-website <domain>',
    description: 'only search these websites (repeatable)',
    parse: repeatable(),
    group: Q,
    reaches: [SOURCES],
  },
  {
    flags: '--excluded-website <domain>',
    description: 'never search these websites (repeatable)',
    parse: repeatable(),
    group: Q,
    reaches: [SOURCES],
  },
  {
    flags: '--x-handle <handle>',
    description: 'only these social-feed handles (repeatable)',
    parse: repeatable(),
    group: Q,
    reaches: [SOURCES],
  },
  {
    flags: '--excluded-x-handle <handle>',
    description: 'never these social-feed handles (repeatable)',
    parse: repeatable(),
    group: Q,
    reaches: [SOURCES],
  },
  {
    flags: '--rss <url>',
    description: 'RSS feed to search (repeatable)',
    parse: repeatable(httpUrl()),
    group: Q,
    reaches: [SOURCES],
  },
  {
    flags: '--no-safe-search',
    description: 'turn safe search off for web and news sources',
    group: Q,
    reaches: [SOURCES],
  },
] as const satisfies readonly RequestRow[];

/** The search_parameters object for the search flags, or undefined when none was given. */
export function searchParameters(f: SearchFlags): Record<string, unknown> | undefined {
  const any =
    f.search ||
    f.searchFrom ||
    f.searchTo ||
    f.maxSearchResults !== undefined ||
    f.citations === false ||
    f.searchSource ||
    f.allowedWebsite ||
    f.excludedWebsite ||
    f.xHandle ||
    f.excludedXHandle ||
    f.rss ||
    f.searchCountry ||
    f.safeSearch === false;
  if (!any) return undefined;
  if (f.searchFrom && f.searchTo && f.searchFrom > f.searchTo)
    fail('--search-from', f.searchFrom, `a date not after --search-to ${f.searchTo}`);
  const sp: Record<string, unknown> = { mode: f.search ?? 'auto' };
  if (f.searchFrom) sp.from_date = f.searchFrom;
  if (f.searchTo) sp.to_date = f.searchTo;
  if (f.maxSearchResults !== undefined) sp.max_search_results = f.maxSearchResults;
  if (f.citations === false) sp.return_citations = false;
  const types = new Set(f.searchSource ?? []);
  if (f.allowedWebsite || f.excludedWebsite) types.add('web');
  if (f.xHandle || f.excludedXHandle) types.add('x');
  if (f.rss) types.add('rss');
  if (types.has('rss') && !f.rss?.length) throw new UsageError('--search-source rss: needs at least one --rss URL');
  if (types.size) {
    sp.sources = [...types].map((type) => {
      const s: Record<string, unknown> = { type };
      if ((type === 'web' || type === 'news') && f.searchCountry) s.country = f.searchCountry;
      if ((type === 'web' || type === 'news') && f.safeSearch === false) s.safe_search = false;
      if (type === 'web' && f.allowedWebsite) s.allowed_websites = f.allowedWebsite;
      if (type === 'web' && f.excludedWebsite) s.excluded_websites = f.excludedWebsite;
      if (type === 'x' && f.xHandle) s.included_x_handles = f.xHandle;
      if (type === 'x' && f.excludedXHandle) s.excluded_x_handles = f.excludedXHandle;
      if (type === 'rss') s.links = f.rss ?? [];
      return s;
    });
  }
  return sp;
}

// ---- audio (local devices of the voice commands)
const A = FLAG_GROUPS.audio;
/**
 * Defined by scripts/build-exe.mjs in the single executable (as svc-formats/assets' IN_EXECUTABLE reads it; read
 * here from the define, so that every command of this chunk does not load that module's chunk too).
 */
declare const __SVC_EXECUTABLE__: boolean | undefined;
export const AUDIO = {
  inputDevice: {
    flags: '--input-device <name>',
    description: 'microphone: an index or name from `svc audio devices` (default: the system default)',
    group: A,
  },
  outputDevice: {
    flags: '--output-device <name>',
    description:
      'speaker: an index or name from `svc audio devices` (default: the system default)' +
      (typeof __SVC_EXECUTABLE__ !== 'undefined'
        ? "; this single executable plays through the platform's player (aplay; SoX on macOS, Windows)"
        : ''),
    group: A,
  },
} as const satisfies Record<string, RequestRow>;
