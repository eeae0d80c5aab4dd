import { readFileSync } from 'node:fs';
import type { InputItem, OutputItem, ResponseObject, ResponseUsage, ResponsesRequest } from '../../api/responses.js';
import { defineCommand } from '../../core/command.js';
import type { Context } from '../../core/context.js';
import { UsageError } from '../../core/errors.js';
import type { HttpClient } from '../../core/http.js';
import { MaxTurnsError, defaultToolDefinition, runCalls, toolCmdParser, unboundCalls, type PendingCall, type ToolCommand } from '../../core/local-tools.js';
import { fail, integer, isoDate, keyValue, number, oneOf, repeatable, require } from '../../core/validate.js';
import { DEFAULT_CHAT_MODEL, imageUrl, parseToolFile } from '../chat/request.js';
import type { ChatTool } from '../../api/chat.js';
import { readInputFlag } from './input.js';
import { lastResponse, rememberResponse } from './state.js';

export const EFFORTS = ['none', 'low', 'medium', 'high', 'xhigh'] as const;
export const SUMMARIES = ['auto', 'concise', 'detailed'] as const;
export const INCLUDES = [
  'reasoning.encrypted_content',
  'web_search_call.action.sources',
  'web_search_call.results',
  'code_interpreter_call.outputs',
  'file_search_call.results',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'message.output_text.logprobs',
] as const;
const SEARCH_MODES = ['off', 'on', 'auto'] as const;

export interface ResponsesFlags {
  model?: string;
  instructions?: string;
  previous?: string;
  continue?: boolean;
  input?: string;
  image?: string[];
  fileId?: string[];
  store: boolean;
  stream: boolean;
  reasoningEffort?: string;
  reasoningSummary?: string;
  include?: string[];
  temperature?: number;
  topP?: number;
  topK?: number;
  minP?: number;
  maxOutputTokens?: number;
  maxTurns?: number;
  logprobs?: boolean;
  topLogprobs?: number;
  parallelToolCalls?: boolean;
  tool?: ChatTool[][];
  toolCmd?: ToolCommand[];
  toolChoice?: string;
  schema?: string;
  format?: 'text' | 'json_object';
  search?: string;
  searchFrom?: string;
  searchTo?: string;
  maxSearchResults?: number;
  citations?: boolean;
  promptCacheKey?: string;
  serviceTier?: string;
  truncation?: string;
  user?: string;
  metadata?: Record<string, string>;
  usage?: boolean;
}

export const DEFAULT_MAX_TURNS = 8;

type RequestBase = { model: string; [field: string]: unknown };

/** `@FILE` reads the text from a file. */
function textOrFile(raw: string, flag: string): string {
  if (!raw.startsWith('@')) return raw;
  try {
    return readFileSync(raw.slice(1), 'utf8');
  } catch (err) {
    return fail(flag, raw, `text, or @FILE naming a readable file (${(err as NodeJS.ErrnoException).code})`);
  }
}

function readJson(flag: string, path: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    return fail(flag, path, `a readable file of JSON (${(err as Error).message})`);
  }
}

export default defineCommand<ResponsesFlags>({
  summary: 'Create a response (streams by default); -c continues the last stored one',
  description:
    'INPUT words (joined with piped stdin) become the user turn. Responses are stored by default, so `-c` (the last one of this profile) or `--previous ID` continues the conversation on the server. Text streams to stdout; reasoning summaries show on a terminal\'s stderr. With --tool and --tool-cmd NAME=COMMAND, each call of NAME runs COMMAND locally (arguments as JSON on its stdin, its stdout as the result) until the model answers, at most --max-turns model turns.',
  args: [{ name: 'input', description: 'the user turn (joined with piped stdin)', variadic: true }],
  options: [
    { flags: '-m, --model <id>', description: `model id or alias (default: the continued response's model, the profile's model, else ${DEFAULT_CHAT_MODEL})` },
    { flags: '--instructions <text|@file>', description: 'system prompt (not with --previous or -c: the earlier one is kept)', parse: textOrFile },
    { flags: '--previous <id>', description: 'continue the stored response with this id' },
    { flags: '-c, --continue', description: 'continue the last stored response of this profile' },
    { flags: '--input <file|->', description: 'input items (JSON, JSON lines, a compaction result) or text; INPUT words are added as a new user turn' },
    { flags: '--image <path|url>', description: 'attach an image (repeatable)', parse: repeatable() },
    { flags: '--file-id <id>', description: 'attach an uploaded file (repeatable)', parse: repeatable() },
    { flags: '--no-store', description: 'do not store the response (it cannot be continued)' },
    { flags: '--no-stream', description: 'wait for the whole response instead of streaming it' },
    { flags: '--reasoning-effort <level>', description: `reasoning effort: ${EFFORTS.join(', ')} (models without reasoning reject it)`, parse: oneOf(EFFORTS), choices: EFFORTS },
    { flags: '--reasoning-summary <kind>', description: `reasoning summary: ${SUMMARIES.join(', ')}`, parse: oneOf(SUMMARIES), choices: SUMMARIES },
    { flags: '--include <what>', description: `extra output (repeatable): ${INCLUDES.join(', ')}`, parse: repeatable(oneOf(INCLUDES)), choices: INCLUDES },
    { flags: '-t, --temperature <n>', description: 'sampling temperature (0-2)', parse: number({ min: 0, max: 2 }) },
    { flags: '--top-p <n>', description: 'nucleus sampling (greater than 0, at most 1)', parse: number({ min: 0, minExclusive: true, max: 1 }) },
    { flags: '--top-k <n>', description: 'only the k most likely tokens (1 to 2147483647)', parse: integer({ min: 1, int32: true }) },
    { flags: '--min-p <n>', description: 'drop tokens below min-p × the top probability (0-1)', parse: number({ min: 0, max: 1 }) },
    { flags: '--max-output-tokens <n>', description: 'cap on output and reasoning tokens (1 to 2147483647; default 128000)', parse: integer({ min: 1, int32: true }) },
    { flags: '--max-turns <n>', description: `cap on tool-calling turns, local (default ${DEFAULT_MAX_TURNS}) and on the server (1 to 2147483647)`, parse: integer({ min: 1, int32: true }) },
    { flags: '--logprobs', description: 'return log probabilities' },
    { flags: '--top-logprobs <n>', description: 'most likely tokens per position (0-8); needs --logprobs', parse: integer({ min: 0, max: 8 }) },
    { flags: '--no-parallel-tool-calls', description: 'at most one tool call per answer' },
    { flags: '--tool <file>', description: 'function tool(s) from a JSON file (repeatable; at most 128 tools)', parse: repeatable((raw, flag) => parseToolFile(raw, flag)) },
    { flags: '--tool-cmd <name=command>', description: 'run COMMAND for each call of tool NAME (repeatable); arguments as JSON on stdin, stdout is the result', parse: toolCmdParser },
    { flags: '--tool-choice <choice>', description: 'none, auto, required, or a function name to force' },
    { flags: '--schema <file>', description: 'answer as JSON valid against this JSON schema' },
    { flags: '--format <type>', description: 'text or json_object', parse: oneOf(['text', 'json_object'] as const), choices: ['text', 'json_object'] },
    { flags: '--search <mode>', description: 'live search: off, on, auto', parse: oneOf(SEARCH_MODES), choices: SEARCH_MODES },
    { flags: '--search-from <date>', description: 'search results from this date (YYYY-MM-DD)', parse: isoDate() },
    { flags: '--search-to <date>', description: 'search results up to this date (YYYY-MM-DD)', parse: isoDate() },
    { flags: '--max-search-results <n>', description: 'search results to consider (1-30)', parse: integer({ min: 1, max: 30 }) },
    { flags: '--no-citations', description: 'do not return citations' },
    { flags: '--prompt-cache-key <key>', description: 'stable key for conversation routing and prompt-cache hits' },
    { flags: '--service-tier <tier>', description: 'default or priority', parse: oneOf(['default', 'priority'] as const), choices: ['default', 'priority'] },
    { flags: '--truncation <mode>', description: 'auto or disabled (compatibility only)', parse: oneOf(['auto', 'disabled'] as const), choices: ['auto', 'disabled'] },
    { flags: '--user <id>', description: 'end-user identifier for abuse monitoring' },
    { flags: '--metadata <key=value>', description: 'metadata (repeatable; kept for compatibility)', parse: keyValue() },
    { flags: '-u, --usage', description: 'print token usage and cost on stderr' },
  ],
  examples: [
    'svc responses create "Name three prime numbers"',
    'svc responses create -c "and three more"',
    'svc responses create --model svc-4-reasoning --reasoning-effort high "plan a trip"',
    'svc responses create --tool weather.json --tool-cmd get_weather=./weather.sh "weather in Paris?"',
    'svc responses compact --model svc-4 --input history.json > ctx.json && svc responses create --input ctx.json "next question"',
  ],
  async run(ctx, [words], flags) {
    const tools = checkFlags(flags);
    let previous = flags.previous;
    let model = flags.model;
    if (flags.continue) {
      const last = lastResponse(ctx);
      if (!last) throw new UsageError(`-c: there is no stored response to continue for the profile ${ctx.config().profile} (create one first, without --no-store)`);
      previous = last.id;
      model ??= last.model;
    }
    model ??= ctx.config().model ?? DEFAULT_CHAT_MODEL;
    const input = await buildInput(ctx, (words as string[] | undefined) ?? [], flags);
    const base = buildBody(flags, model, tools);
    const http = await ctx.http();
    return runLoop(ctx, http, base, input, previous, flags);
  },
});

function checkFlags(f: ResponsesFlags): Record<string, unknown>[] {
  require(!(f.continue && f.previous), '--previous', f.previous, 'not together with -c/--continue');
  require(!(f.instructions !== undefined && (f.previous || f.continue)), '--instructions', f.instructions?.slice(0, 30), 'not together with --previous or -c (the earlier response\'s instructions are kept)');
  require(f.topLogprobs === undefined || !!f.logprobs, '--top-logprobs', f.topLogprobs, 'only together with --logprobs');
  require(!(f.schema && f.format), '--schema', f.schema, 'not together with --format');
  require(!(f.searchFrom && f.searchTo && f.searchFrom > f.searchTo), '--search-from', f.searchFrom, `a date not after --search-to ${f.searchTo}`);
  const defs: Record<string, unknown>[] = (f.tool ?? []).flat().map((t) => ({ type: 'function', name: t.function.name, description: t.function.description, parameters: t.function.parameters, ...(t.function.strict !== undefined ? { strict: t.function.strict } : {}) }));
  for (const c of f.toolCmd ?? []) if (!defs.some((d) => d.name === c.name)) defs.push({ type: 'function', ...defaultToolDefinition(c.name) });
  require(defs.length <= 128, '--tool', `${defs.length} tools`, 'at most 128 tools in all');
  const names = new Set<string>();
  for (const d of defs) {
    require(!names.has(d.name as string), '--tool', d.name, 'tool names that are unique');
    names.add(d.name as string);
  }
  if (f.toolChoice !== undefined) {
    const builtin = ['none', 'auto', 'required'].includes(f.toolChoice);
    require(builtin || names.has(f.toolChoice), '--tool-choice', f.toolChoice, `none, auto, required, or the name of a tool${names.size ? ` (${[...names].join(', ')})` : ''}`);
    require(f.toolChoice !== 'required' || names.size > 0, '--tool-choice', f.toolChoice, 'required needs at least one --tool');
  }
  return defs;
}

async function buildInput(ctx: Context, words: string[], f: ResponsesFlags): Promise<string | InputItem[]> {
  const items: InputItem[] = [];
  if (f.input) {
    const from = await readInputFlag(ctx, '--input', f.input);
    if (typeof from === 'string') items.push({ type: 'message', role: 'user', content: from });
    else items.push(...from);
  }
  const fromArgs = words.join(' ').trim();
  let fromStdin = '';
  if (f.input !== '-' && !ctx.streams.stdin.isTTY) fromStdin = (await ctx.readStdin()).replace(/\s+$/, '');
  const text = fromArgs && fromStdin ? `${fromArgs}\n\n${fromStdin}` : fromArgs || fromStdin;
  if (!text && !items.length) throw new UsageError('no input: give it as arguments (svc responses create "…"), pipe it on stdin, or use --input FILE');
  const attachments = !!(f.image?.length || f.fileId?.length);
  if (!attachments && !items.length) return text;
  if (text || attachments) {
    const parts: Record<string, unknown>[] = [];
    if (text) parts.push({ type: 'input_text', text });
    for (const img of f.image ?? []) parts.push({ type: 'input_image', image_url: imageUrl(img) });
    for (const id of f.fileId ?? []) parts.push({ type: 'input_file', file_id: id });
    items.push({ type: 'message', role: 'user', content: attachments ? parts : text });
  }
  return items;
}

function buildBody(f: ResponsesFlags, model: string, tools: Record<string, unknown>[]): RequestBase {
  const body: RequestBase = { model };
  const set = (k: string, v: unknown) => {
    if (v !== undefined) body[k] = v;
  };
  set('instructions', f.instructions);
  if (f.store === false) body.store = false;
  if (f.reasoningEffort || f.reasoningSummary) body.reasoning = { ...(f.reasoningEffort ? { effort: f.reasoningEffort } : {}), ...(f.reasoningSummary ? { summary: f.reasoningSummary } : {}) };
  set('include', f.include);
  set('temperature', f.temperature);
  set('top_p', f.topP);
  set('top_k', f.topK);
  set('min_p', f.minP);
  set('max_output_tokens', f.maxOutputTokens);
  set('max_turns', f.maxTurns);
  if (f.logprobs) body.logprobs = true;
  set('top_logprobs', f.topLogprobs);
  if (f.parallelToolCalls === false) body.parallel_tool_calls = false;
  if (tools.length) body.tools = tools;
  if (f.toolChoice !== undefined) body.tool_choice = ['none', 'auto', 'required'].includes(f.toolChoice) ? f.toolChoice : { type: 'function', name: f.toolChoice };
  if (f.schema) {
    const data = readJson('--schema', f.schema);
    const wrapped = data && typeof data.schema === 'object' ? data : { name: 'response', schema: data, strict: true };
    body.text = { format: { type: 'json_schema', ...wrapped } };
  } else if (f.format) body.text = { format: { type: f.format } };
  if (f.search || f.searchFrom || f.searchTo || f.maxSearchResults !== undefined || f.citations === false) {
    const sp: Record<string, unknown> = { mode: f.search ?? 'auto' };
    if (f.searchFrom) sp.from_date = f.searchFrom;
    if (f.searchTo) sp.to_date = f.searchTo;
    if (f.maxSearchResults !== undefined) sp.max_search_results = f.maxSearchResults;
    if (f.citations === false) sp.return_citations = false;
    body.search_parameters = sp;
  }
  set('prompt_cache_key', f.promptCacheKey);
  set('service_tier', f.serviceTier);
  set('truncation', f.truncation);
  set('user', f.user);
  set('metadata', f.metadata);
  return body;
}

/** One model turn, streamed or not, printed as it arrives. */
async function oneTurn(ctx: Context, http: HttpClient, body: ResponsesRequest, stream: boolean): Promise<ResponseObject> {
  const api = await import('../../api/responses.js');
  if (!stream) {
    const r = await api.createResponse(http, body, ctx.signal);
    if (ctx.out.json) ctx.out.printJson(r);
    else {
      const reasoning = api.reasoningText(r);
      if (reasoning && ctx.out.stderrIsTTY && !ctx.globals.quiet) ctx.out.stderrWrite(ctx.out.ce.dim(reasoning.trim()) + '\n');
      const text = api.outputText(r);
      if (text) ctx.out.line(text.replace(/\n$/, ''));
    }
    return r;
  }
  const showReasoning = ctx.out.stderrIsTTY && !ctx.globals.quiet && !ctx.out.json;
  let reasoningOpen = false;
  const closeReasoning = () => {
    if (reasoningOpen) ctx.out.stderrWrite('\n');
    reasoningOpen = false;
  };
  try {
    const r = await api.consumeResponseStream(api.streamResponseEvents(http, body, ctx.signal), {
      onEvent: (ev) => {
        if (ctx.out.json) ctx.out.printJsonLine(ev);
      },
      onReasoning: (d) => {
        if (!showReasoning) return;
        reasoningOpen = true;
        ctx.out.stderrWrite(ctx.out.ce.dim(d));
      },
      onText: (d) => {
        closeReasoning();
        if (!ctx.out.json) ctx.out.write(d);
      },
    });
    closeReasoning();
    if (!ctx.out.json) ctx.out.endLine();
    return r;
  } catch (err) {
    closeReasoning();
    if (!ctx.out.json) ctx.out.endLine();
    throw err;
  }
}

function printCalls(ctx: Context, calls: OutputItem[]): void {
  for (const c of calls) {
    let args: unknown = c.arguments;
    try {
      args = JSON.parse(String(c.arguments));
    } catch {
      // keep the raw text
    }
    if (ctx.out.stdoutIsTTY) ctx.out.line(`${ctx.out.c.cyan('tool call')} ${c.name}(${JSON.stringify(args)}) ${ctx.out.c.dim(String(c.call_id))}`);
    else ctx.out.printJsonLine({ id: c.call_id, name: c.name, arguments: args });
  }
}

function addUsage(total: ResponseUsage | undefined, u: ResponseUsage | null | undefined): ResponseUsage | undefined {
  if (!u) return total;
  if (!total) return { ...u, output_tokens_details: { ...u.output_tokens_details } };
  return {
    input_tokens: total.input_tokens + u.input_tokens,
    output_tokens: total.output_tokens + u.output_tokens,
    total_tokens: total.total_tokens + u.total_tokens,
    output_tokens_details: { reasoning_tokens: (total.output_tokens_details?.reasoning_tokens ?? 0) + (u.output_tokens_details?.reasoning_tokens ?? 0) },
    cost_in_usd_ticks: typeof u.cost_in_usd_ticks === 'number' ? (total.cost_in_usd_ticks ?? 0) + u.cost_in_usd_ticks : total.cost_in_usd_ticks,
  };
}

export function responseUsageLine(u: ResponseUsage | undefined, model?: string): string {
  if (!u) return 'usage: not reported';
  const reasoning = u.output_tokens_details?.reasoning_tokens;
  let line = `usage: ${u.input_tokens} input + ${u.output_tokens} output${reasoning ? ` (${reasoning} reasoning)` : ''} = ${u.total_tokens} tokens`;
  if (typeof u.cost_in_usd_ticks === 'number') line += ` · $${(u.cost_in_usd_ticks / 1e10).toFixed(6)}`;
  if (model) line += ` · ${model}`;
  return line;
}

/** Model turns until the answer: calls of tools bound by --tool-cmd are run locally and their outputs sent back. */
async function runLoop(ctx: Context, http: HttpClient, base: RequestBase, firstInput: string | InputItem[], firstPrevious: string | undefined, f: ResponsesFlags): Promise<number> {
  const api = await import('../../api/responses.js');
  const maxTurns = f.maxTurns ?? DEFAULT_MAX_TURNS;
  const commands = f.toolCmd ?? [];
  const stored = f.store !== false;
  // without storage the whole conversation is sent again each turn
  const history: InputItem[] = typeof firstInput === 'string' ? [{ type: 'message', role: 'user', content: firstInput }] : [...firstInput];
  let input: string | InputItem[] = firstInput;
  let previous = firstPrevious;
  let usage: ResponseUsage | undefined;
  for (let turn = 1; ; turn++) {
    const body: ResponsesRequest = { ...base, input, ...(previous ? { previous_response_id: previous } : {}) };
    const r = await oneTurn(ctx, http, body, f.stream !== false);
    usage = addUsage(usage, r.usage);
    if (stored && r.store !== false) rememberResponse(ctx, r.id, r.model);
    const calls = api.functionCalls(r);
    if (r.status === 'incomplete') ctx.out.warn(`the answer was cut off (${r.incomplete_details?.reason ?? 'incomplete'}; see --max-output-tokens)`);
    if (!calls.length) break;
    const pending: PendingCall[] = calls.map((c) => ({ id: String(c.call_id), name: String(c.name), arguments: String(c.arguments ?? '{}') }));
    if (!commands.length || unboundCalls(pending, commands).length) {
      // a call nobody runs here is the answer: print it for the caller
      if (!ctx.out.json) printCalls(ctx, calls);
      break;
    }
    if (turn >= maxTurns) throw new MaxTurnsError(maxTurns, pending);
    const results = await runCalls(pending, commands, {
      signal: ctx.signal,
      onRun: (c) => ctx.out.info(ctx.out.ce.dim(`running ${c.name} ${c.arguments}`)),
    });
    const outputs: InputItem[] = results.map((x) => ({ type: 'function_call_output', call_id: x.id, output: x.output }));
    if (stored && r.store !== false) {
      previous = r.id;
      input = outputs;
    } else {
      history.push(...(r.output as InputItem[]), ...outputs);
      input = history;
    }
  }
  if (f.usage) ctx.out.info(ctx.out.ce.dim(responseUsageLine(usage, String(base.model))));
  return 0;
}
