import type { OptionValues } from '../../core/option-spec.js';
import { readInputText } from '../../core/input-file.js';
import { answerWriter, extractFlags, printAnswer } from '../../cmdutil/answer-writer.js';
import { tokenSum } from '../../term/usage.js';
import type {
  InputItem,
  OutputItem,
  ResponseObject,
  ResponseUsage,
  ResponsesRequest,
} from '../../endpoints/responses.js';
import type { ChatTool } from '../../endpoints/chat.js';
import { defineCommand } from '../../cmdutil/command.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../core/errors.js';
import {
  FLAG_GROUPS,
  OUTPUT,
  PARALLEL_TOOL_CALLS,
  SEARCH_ROWS,
  modelFlag,
  resolveModel,
  sampling,
  searchParameters,
  toolChoiceFlag,
  toolCmdFlag,
  TEMPLATE_FLAGS,
  EXTRACT_FLAGS,
  ATTACH_FLAGS,
  toolFlag,
  APPROVE_FLAG,
  MCP_FLAG,
  DEFAULT_LANGUAGE_MODEL,
} from '../../cmdutil/flag-sets.js';
import type { HttpClient } from '../../net/http.js';
import { imageRef } from '../../cmdutil/image-ref.js';
import {
  DECLINED,
  DEFAULT_MAX_TURNS,
  MaxTurnsError,
  defaultToolDefinition,
  runToolCommand,
  toolCmdParser,
  type PendingCall,
  type ToolCommand,
} from '../../cmdutil/local-tools.js';
import type { Approver } from '../../cmdutil/approve.js';
import type { McpServers } from '../../mcp/client.js';
import { fillBody, type RequestTable } from '../../core/request-table.js';
import { joinWithStdin } from '../../cmdutil/text-input.js';
import { checkTools, isFunctionTool, readJsonFile } from '../../cmdutil/tool-file.js';
import { fail, integer, keyValue, oneOf, repeatable, require } from '../../core/validate.js';
import { readInputFlag } from './input.js';
import { lastResponse, rememberResponse } from './state.js';
import { SCHEMAS } from 'svc-formats/api-facts';

/** the Responses API's reasoning.effort, wider than chat's (xhigh) */
const RESPONSES_REASONING_EFFORTS = SCHEMAS.ResponsesReasoningEffort.$.enum;
const SUMMARIES = SCHEMAS.ResponsesRequest['$.reasoning.summary'].enum;
/** the Responses API's tiers (chat's are auto and priority) */
const SERVICE_TIERS = SCHEMAS.ResponsesRequest['$.service_tier'].enum;
export const INCLUDES = SCHEMAS.ResponsesRequest['$.include[]'].enum;
const TRUNCATIONS = SCHEMAS.ResponsesRequest['$.truncation'].enum;
/** hosted tools a --tool file may hold besides functions (a web_search_preview tool is overridden by --search*) */
export const HOSTED_TOOLS = ['web_search', 'web_search_preview'] as const;
/** tool_choice's modes (a string; else a function is forced) */
const TOOL_CHOICE_MODES = SCHEMAS.ResponsesRequest['$.tool_choice'].enum;

export type ResponsesFlags = OptionValues<typeof RESPONSES_TABLE.rows> & {
  /** a template's schema (cmdutil/templates.ts), used when --schema gives none: no flag of its own */
  schemaValue?: unknown;
};

type RequestBase = { model: string; [field: string]: unknown };

/** `@FILE` reads the text from a file. */
function textOrFile(raw: string, flag: string): string {
  if (!raw.startsWith('@')) return raw;
  return readInputText(flag, raw.slice(1));
}

/** A JSON array given inline or as a file. */
function jsonArray(raw: string, flag: string): unknown[] {
  let v: unknown;
  if (/^\s*[[{]/.test(raw)) {
    try {
      v = JSON.parse(raw);
    } catch (err) {
      return fail(flag, raw, `a JSON array, or a file holding one (${(err as Error).message})`);
    }
  } else v = readJsonFile(flag, raw);
  if (!Array.isArray(v)) fail(flag, raw, 'a JSON array, or a file holding one');
  return v as unknown[];
}

export const RESPONSES_TABLE = {
  operation: 'POST /v1/responses',
  rows: [
    modelFlag(
      `model id or alias (default: the continued response's model, the profile's model, else ` +
        `${DEFAULT_LANGUAGE_MODEL})`,
    ),
    {
      flags: '--instructions <text|@file>',
      description: 'system prompt (not with --previous or -c: the earlier one is kept)',
      parse: textOrFile,
      field: 'instructions',
    },
    {
      flags: '--previous <id>',
      description: 'continue the stored response with this id',
      reaches: ['previous_response_id'],
    },
    {
      flags: '-c, --continue',
      description: 'continue the last stored response of this profile',
      reaches: ['previous_response_id'],
    },
    {
      flags: '--input <file|->',
      description:
        'input items (JSON, JSON lines, a compaction result) or text; INPUT words are added as a new user turn',
      reaches: ['input'],
    },
    {
      flags: '--image <path|url>',
      description: 'attach an image (repeatable)',
      parse: repeatable(),
      reaches: ['input'],
    },
    {
      flags: '--file-id <id>',
      description: 'attach an uploaded file (repeatable)',
      parse: repeatable(),
      reaches: ['input'],
    },
    { flags: '--no-store', description: 'do not store the response (it cannot be continued)', field: 'store' },
    OUTPUT.noStream,
    OUTPUT.raw,
    {
      flags: '--background',
      description: 'run in the background (the spec marks it unsupported: the server decides)',
      field: 'background',
    },
    {
      flags: '--context-management <json|file>',
      description: 'context_management array, inline JSON or a file (accepted, not yet executed by the service)',
      parse: jsonArray,
      field: 'context_management',
    },
    {
      flags: '--reasoning-effort <level>',
      description: `reasoning effort: ${RESPONSES_REASONING_EFFORTS.join(', ')} (models without reasoning reject it)`,
      parse: oneOf(RESPONSES_REASONING_EFFORTS),
      choices: RESPONSES_REASONING_EFFORTS,
      field: 'reasoning.effort',
    },
    {
      flags: '--reasoning-summary <kind>',
      description: `reasoning summary: ${SUMMARIES.join(', ')}`,
      parse: oneOf(SUMMARIES),
      choices: SUMMARIES,
      field: 'reasoning.summary',
    },
    {
      flags: '--reasoning-generate-summary <kind>',
      description: `reasoning.generate_summary (compatibility): ${SUMMARIES.join(', ')}`,
      parse: oneOf(SUMMARIES),
      choices: SUMMARIES,
      field: 'reasoning.generate_summary',
    },
    {
      flags: '--include <what>',
      description: `extra output (repeatable): ${INCLUDES.join(', ')}`,
      parse: repeatable(oneOf(INCLUDES)),
      choices: INCLUDES,
      field: 'include',
    },
    ...sampling(['temperature', 'topP', 'topK', 'minP']),
    {
      flags: '--max-output-tokens <n>',
      description: 'cap on output and reasoning tokens (1 to 2147483647; default 128000)',
      parse: integer({ min: 1, int32: true }),
      field: 'max_output_tokens',
    },
    {
      flags: '--max-turns <n>',
      description: `cap on tool-calling turns, local (default ${DEFAULT_MAX_TURNS}) and on the server (1-2147483647)`,
      parse: integer({ min: 1, int32: true }),
      field: 'max_turns',
      group: FLAG_GROUPS.tools,
    },
    OUTPUT.logprobs,
    OUTPUT.topLogprobs,
    PARALLEL_TOOL_CALLS,
    toolFlag(
      `function tool(s), or a ${HOSTED_TOOLS.join(' or ')} tool, from a JSON file (repeatable; at most 128 tools)`,
      { hosted: HOSTED_TOOLS },
    ),
    toolCmdFlag(toolCmdParser),
    MCP_FLAG,
    APPROVE_FLAG,
    toolChoiceFlag(() => TOOL_CHOICE_MODES),
    ...TEMPLATE_FLAGS,
    ...EXTRACT_FLAGS,
    ...ATTACH_FLAGS,
    { flags: '--schema <file>', description: 'answer as JSON valid against this JSON schema', reaches: ['text'] },
    {
      flags: '--format <type>',
      description: 'text or json_object',
      parse: oneOf(['text', 'json_object'] as const),
      choices: ['text', 'json_object'],
      reaches: ['text'],
    },
    ...SEARCH_ROWS,
    {
      flags: '--prompt-cache-key <key>',
      description: 'stable key for conversation routing and prompt-cache hits',
      field: 'prompt_cache_key',
    },
    {
      flags: '--service-tier <tier>',
      description: 'default or priority',
      parse: oneOf(SERVICE_TIERS),
      choices: SERVICE_TIERS,
      field: 'service_tier',
    },
    {
      flags: '--truncation <mode>',
      description: 'auto or disabled (compatibility only)',
      parse: oneOf(TRUNCATIONS),
      choices: TRUNCATIONS,
      field: 'truncation',
    },
    { flags: '--user <id>', description: 'end-user identifier for abuse monitoring', field: 'user' },
    {
      flags: '--metadata <key=value>',
      description: 'metadata (repeatable; kept for compatibility)',
      parse: keyValue(),
      field: 'metadata',
    },
    { ...OUTPUT.usage, description: 'print token usage and cost on stderr' },
  ],
  inputs: { input: 'INPUT words joined with piped stdin', stream: 'streamed unless --no-stream' },
} as const satisfies RequestTable;

export default defineCommand({
  description:
    'INPUT words (joined with piped stdin) become the user turn. Responses are stored by default, so `-c` ' +
    '(the last one of this profile) or `--previous ID` continues the conversation on the server; on a ' +
    "terminal the new response's id is shown on stderr. Text streams to stdout; reasoning summaries show on " +
    "a terminal's stderr. With --tool and --tool-cmd NAME=COMMAND, each call of NAME runs COMMAND locally " +
    '(arguments as JSON on its stdin, its stdout as the result) until the model answers, at most --max-turns ' +
    'model turns.',
  args: [{ name: 'input', description: 'the user turn (joined with piped stdin)', variadic: true }],
  options: RESPONSES_TABLE.rows,
  requests: [RESPONSES_TABLE],
  examples: [
    'svc responses create "Name three prime numbers"',
    'svc responses create -c "and three more"',
    'svc responses create -t summarize --var lang=French < report.txt',
    'svc responses create --model svc-4-reasoning --reasoning-effort high "plan a trip"',
    'svc responses create --search on --search-source news --search-country DE "headlines today"',
    'svc responses create --tool weather.json --tool-cmd get_weather=./weather.sh "weather in Paris?"',
    'svc responses compact --model svc-4 --input history.json > ctx.json && svc responses create --input ' +
      'ctx.json "next question"',
  ],
  async run(ctx, [given], flags) {
    let words = await templatedWords(ctx, flags, (given as string[] | undefined) ?? []);
    const tools = checkFlags(flags);
    let previous = flags.previous;
    let model = flags.model;
    const last = flags.continue || previous ? lastResponse(ctx) : undefined;
    if (flags.continue) {
      if (!last)
        throw new UsageError(
          `-c: there is no stored response to continue for the profile ${ctx.config().profile} (create one ` +
            `first, without --no-store)`,
        );
      previous = last.id;
    }
    let cleanup = async () => {};
    if (flags.attach || flags.fragment) {
      const { attachToPrompt } = await import('../../cmdutil/attachments.js');
      const files = () => import('../../endpoints/files.js');
      ({ words, cleanup } = await attachToPrompt(ctx, flags, words, { command: 'svc responses create', files }));
    }
    const input = await buildInput(ctx, words, flags);
    const base = buildBody(flags, model ?? '', tools);
    const http = await ctx.http();
    // the continued response's model, as -c does: the remembered one, else asked of the server
    if (!model && previous)
      model =
        last?.id === previous && last.model
          ? last.model
          : (await (await import('../../endpoints/responses.js')).getResponse(http, previous)).model;
    base.model = resolveModel(ctx, model);
    let mcp: McpServers | undefined;
    try {
      const approve = flags.approve ? (await import('../../cmdutil/approve.js')).approver(ctx) : undefined;
      mcp = flags.mcp?.length ? await startMcp(ctx, flags.mcp, base) : undefined;
      return await runLoop(ctx, http, base, input, previous, flags, { mcp, approve });
    } finally {
      await mcp?.close();
      await cleanup();
    }
  },
});

/** --mcp: the servers started and their tools added to the request's (flat function tools). */
async function startMcp(ctx: Context, given: string[], base: RequestBase): Promise<McpServers> {
  const { startServers } = await import('../../mcp/client.js');
  const tools = (base.tools ?? []) as { name?: string }[];
  const servers = await startServers(
    ctx,
    given,
    tools.map((t) => String(t.name)),
  );
  base.tools = [
    ...tools,
    ...servers.tools.map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description,
      parameters: t.parameters,
    })),
  ];
  return servers;
}

/**
 * The outputs of the calls: each bound command's or MCP tool's output as a function_call_output (a string); the
 * images MCP tools returned follow as one user message of input_image parts, the way the API takes images.
 */
async function callOutputs(
  ctx: Context,
  pending: PendingCall[],
  commands: ToolCommand[],
  more: LoopExtras,
): Promise<InputItem[]> {
  const outputs: InputItem[] = [];
  const images: { type: 'input_image'; image_url: string }[] = [];
  for (const call of pending) {
    let output: string;
    const command = commands.find((c) => c.name === call.name);
    if (more.approve && !(await more.approve(call))) output = DECLINED;
    else {
      ctx.out.info(ctx.out.ce.dim(`running ${call.name} ${call.arguments}`));
      if (command) output = await runToolCommand(command.command, call.arguments || '{}', { signal: ctx.signal });
      else {
        const r = await more.mcp!.call(call.name, call.arguments);
        output = r.isError ? JSON.stringify({ error: r.text }) : r.text;
        for (const i of r.images)
          images.push({ type: 'input_image', image_url: `data:${i.mimeType};base64,${i.data}` });
      }
    }
    outputs.push({ type: 'function_call_output', call_id: call.id, output });
  }
  if (images.length)
    outputs.push({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'The images the tool calls returned:' }, ...images],
    } as InputItem);
  return outputs;
}

interface LoopExtras {
  mcp?: McpServers;
  approve?: Approver;
}

/** -x checked, and -t NAME: the template's flags filled in and the prompt it makes (cmdutil/templates.ts). */
async function templatedWords(ctx: Context, flags: ResponsesFlags, words: string[]): Promise<string[]> {
  extractFlags(ctx, flags);
  if (!flags.template) return words;
  const { applyTemplate } = await import('../../cmdutil/templates.js');
  return (await applyTemplate(ctx, flags as unknown as Record<string, unknown>, words, {
    command: 'svc responses create',
    options: RESPONSES_TABLE.rows,
    systemKey: 'instructions',
    schemaKey: 'schemaValue',
    stdinIsPrompt: flags.input !== '-' && !ctx.streams.stdin.isTTY,
  }))!;
}

function checkFlags(f: ResponsesFlags): Record<string, unknown>[] {
  require(!(f.continue && f.previous), '--previous', f.previous, 'not together with -c/--continue');
  require(!(f.instructions !== undefined && (f.previous || f.continue)), '--instructions', f.instructions?.slice(
    0,
    30,
  ), "not together with --previous or -c (the earlier response's instructions are kept)");
  require(f.topLogprobs === undefined ||
    !!f.logprobs, '--top-logprobs', f.topLogprobs, 'only together with --logprobs');
  require(!((f.schema || f.schemaValue) && f.format), '--schema', f.schema ??
    "(the template's)", 'not together with --format');
  const given = (f.tool ?? []).flat();
  const bound = (f.toolCmd ?? []).filter((c) => !given.some((t) => isFunctionTool(t) && t.function.name === c.name));
  const all = checkTools(
    [given, bound.map((c): ChatTool => ({ type: 'function', function: defaultToolDefinition(c.name) }))],
    f.toolChoice,
    () => TOOL_CHOICE_MODES,
    'required',
  );
  searchParameters(f);
  return all.map((t) =>
    isFunctionTool(t)
      ? {
          type: 'function',
          name: t.function.name,
          description: t.function.description,
          parameters: t.function.parameters,
          ...(t.function.strict !== undefined ? { strict: t.function.strict } : {}),
        }
      : { ...t },
  );
}

async function buildInput(ctx: Context, words: string[], f: ResponsesFlags): Promise<string | InputItem[]> {
  const items: InputItem[] = [];
  if (f.input) {
    const from = await readInputFlag(ctx, '--input', f.input);
    if (typeof from === 'string') items.push({ type: 'message', role: 'user', content: from });
    else items.push(...from);
  }
  const text = await joinWithStdin(ctx, words, f.input !== '-' && !ctx.streams.stdin.isTTY);
  if (!text && !items.length)
    throw new UsageError(
      'no input: give it as arguments (svc responses create "…"), pipe it on stdin, or use --input FILE',
    );
  const attachments = !!(f.image?.length || f.fileId?.length);
  if (!attachments && !items.length) return text;
  if (text || attachments) {
    const parts: Record<string, unknown>[] = [];
    if (text) parts.push({ type: 'input_text', text });
    for (const img of f.image ?? []) parts.push({ type: 'input_image', image_url: imageRef(img) });
    for (const id of f.fileId ?? []) parts.push({ type: 'input_file', file_id: id });
    items.push({ type: 'message', role: 'user', content: attachments ? parts : text });
  }
  return items;
}

function buildBody(f: ResponsesFlags, model: string, tools: Record<string, unknown>[]): RequestBase {
  const body: RequestBase = { model };
  if (tools.length) body.tools = tools;
  if (f.toolChoice !== undefined)
    body.tool_choice = TOOL_CHOICE_MODES.find((m) => m === f.toolChoice) ?? { type: 'function', name: f.toolChoice };
  if (f.schema || f.schemaValue !== undefined) {
    const data = (f.schema ? readJsonFile('--schema', f.schema) : f.schemaValue) as Record<string, unknown>;
    const wrapped = data && typeof data.schema === 'object' ? data : { name: 'response', schema: data, strict: true };
    body.text = { format: { type: 'json_schema', ...wrapped } };
  } else if (f.format) body.text = { format: { type: f.format } };
  const search = searchParameters(f);
  if (search) body.search_parameters = search;
  return fillBody(RESPONSES_TABLE.rows, f, body);
}

/** One model turn, streamed or not, printed as it arrives. */
async function oneTurn(
  ctx: Context,
  http: HttpClient,
  body: ResponsesRequest,
  stream: boolean,
  raw?: boolean,
): Promise<ResponseObject> {
  const api = await import('../../endpoints/responses.js');
  if (!stream) {
    const r = await api.createResponse(http, body, ctx.signal);
    if (ctx.out.json) ctx.out.printJson(r);
    else {
      const reasoning = api.reasoningText(r);
      if (reasoning && ctx.out.stderrIsTTY && !ctx.globals.quiet)
        ctx.out.stderrWrite(`${ctx.out.ce.dim(reasoning.trim())}\n`);
      const text = api.outputText(r);
      printAnswer(ctx, text);
    }
    return r;
  }
  const showReasoning = ctx.out.stderrIsTTY && !ctx.globals.quiet && !ctx.out.json;
  let reasoningOpen = false;
  const closeReasoning = () => {
    if (reasoningOpen) ctx.out.stderrWrite('\n');
    reasoningOpen = false;
  };
  const answer = await answerWriter(ctx, raw);
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
        answer.write(d);
      },
    });
    closeReasoning();
    await answer.end();
    if (!ctx.out.json) ctx.out.endLine();
    ctx.logCall({ model: r.model, usage: r.usage, answer: api.outputText(r) });
    return r;
  } catch (err) {
    closeReasoning();
    await answer.end().catch(() => undefined);
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
    if (ctx.out.stdoutIsTTY)
      ctx.out.line(
        `${ctx.out.c.cyan('tool call')} ${c.name}(${JSON.stringify(args)}) ${ctx.out.c.dim(String(c.call_id))}`,
      );
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
    output_tokens_details: {
      reasoning_tokens:
        (total.output_tokens_details?.reasoning_tokens ?? 0) + (u.output_tokens_details?.reasoning_tokens ?? 0),
    },
    cost_in_usd_ticks:
      typeof u.cost_in_usd_ticks === 'number'
        ? (total.cost_in_usd_ticks ?? 0) + u.cost_in_usd_ticks
        : total.cost_in_usd_ticks,
  };
}

export function responseUsageLine(u: ResponseUsage | undefined, model?: string): string {
  if (!u) return 'usage: not reported';
  const reasoning = u.output_tokens_details?.reasoning_tokens;
  let line = `usage: ${tokenSum([u.input_tokens, 'input'], [u.output_tokens, 'output'], reasoning, u.total_tokens)}`;
  if (typeof u.cost_in_usd_ticks === 'number') line += ` · $${(u.cost_in_usd_ticks / 1e10).toFixed(6)}`;
  if (model) line += ` · ${model}`;
  return line;
}

/** Model turns until the answer: calls of tools bound by --tool-cmd are run locally and their outputs sent back. */
async function runLoop(
  ctx: Context,
  http: HttpClient,
  base: RequestBase,
  firstInput: string | InputItem[],
  firstPrevious: string | undefined,
  f: ResponsesFlags,
  more: LoopExtras = {},
): Promise<number> {
  const api = await import('../../endpoints/responses.js');
  const maxTurns = f.maxTurns ?? DEFAULT_MAX_TURNS;
  const commands = f.toolCmd ?? [];
  const stored = f.store !== false;
  // without storage the whole conversation is sent again each turn
  const history: InputItem[] =
    typeof firstInput === 'string' ? [{ type: 'message', role: 'user', content: firstInput }] : [...firstInput];
  let input: string | InputItem[] = firstInput;
  let previous = firstPrevious;
  let usage: ResponseUsage | undefined;
  let r: ResponseObject;
  for (let turn = 1; ; turn++) {
    const body: ResponsesRequest = { ...base, input, ...(previous ? { previous_response_id: previous } : {}) };
    r = await oneTurn(ctx, http, body, f.stream !== false, f.raw);
    usage = addUsage(usage, api.responseUsage(r.usage));
    if (stored && r.store !== false) rememberResponse(ctx, r.id, r.model);
    const calls = api.functionCalls(r);
    if (r.status === 'incomplete')
      ctx.out.warn(`the answer was cut off (${r.incomplete_details?.reason ?? 'incomplete'}; see --max-output-tokens)`);
    if (!calls.length) break;
    const pending: PendingCall[] = calls.map((c) => ({
      id: String(c.call_id),
      name: String(c.name),
      arguments: String(c.arguments ?? '{}'),
    }));
    const bound = (c: PendingCall) => commands.some((t) => t.name === c.name) || !!more.mcp?.has(c.name);
    if (!pending.every(bound)) {
      // a call nobody runs here is the answer: print it for the caller
      if (!ctx.out.json) printCalls(ctx, calls);
      break;
    }
    if (turn >= maxTurns) throw new MaxTurnsError(maxTurns, pending);
    const outputs = await callOutputs(ctx, pending, commands, more);
    if (stored && r.store !== false) {
      previous = r.id;
      input = outputs;
    } else {
      history.push(...(r.output as InputItem[]), ...outputs);
      input = history;
    }
  }
  // the model that answered (an alias such as svc-latest resolves to a model id)
  if (f.usage) ctx.out.asked(ctx.out.ce.dim(responseUsageLine(usage, r.model ?? String(base.model))));
  // the id get/delete/items/--previous need: on a terminal only (--json carries it in the events)
  if (ctx.out.stderrIsTTY && !ctx.out.json && !ctx.globals.quiet && r.store !== false && stored)
    ctx.out.info(ctx.out.ce.dim(`response ${r.id}`));
  return 0;
}
