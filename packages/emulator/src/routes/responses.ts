// The Responses convention: POST /v1/responses (JSON or a typed event stream), stored responses (GET, DELETE,
// input items paged by cursor), previous_response_id continuation, and POST /v1/responses/compact.
import type { Backend } from '../state/backend.js';
import {
  contentText,
  costTicks,
  requireLanguageModel,
  type EngineReply,
  type EngineTool,
  type EngineTurn,
} from '../text/engine.js';
import type { LanguageModel } from '../text/catalog.js';
import { queryNumber, type EmuRequest, type EmuResponse, type Handler, type Router } from '../http/router.js';
import { invalid, notFound } from '../core/errors.js';
import { generateWithToolPlan } from '../text/tool-plan.js';
import { checkAttachedFiles } from '../state/files.js';
import { countTokens } from '../text/tokenizer.js';
import { SCHEMAS } from 'svc-formats/api-facts';

/** the model a request without one gets: the document's default, as the service answers */
const DEFAULT_MODEL = SCHEMAS.ResponsesRequest['$.model'].default;

type Body = Record<string, any>;
type Item = Record<string, any>;

interface StoredResponse {
  team: string;
  response: Body;
  /** the whole context the model saw for this response: earlier inputs and outputs, then this input */
  items: Item[];
  /** the system prompt in force (kept for continuations) */
  instructions: string | null;
}

const THIRTY_DAYS = 30 * 24 * 3600;
/** the document's `include` values (its request checker refuses others first; the message here names them) */
// reasoning.effort's values (the legacy top-level reasoning_effort takes the same)
const ROLES: readonly string[] = SCHEMAS.InputItem['$.role'].enum;
const TOOL_TYPES: readonly string[] = SCHEMAS.ResponsesTool['$.type'].enum;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function store(core: Backend) {
  return core.store.collection<StoredResponse>('responses');
}

/** A stored response of the caller's team that has not expired (404 otherwise). */
function findStored(core: Backend, req: EmuRequest, id: string): StoredResponse {
  const rec = store(core).get(id);
  if (rec && rec.response.created_at + THIRTY_DAYS < core.nowSec()) {
    store(core).delete(id);
    core.store.save();
  } else if (rec && rec.team === req.key?.team_id) return rec;
  return notFound(`Response with id '${id}' not found`);
}

/** Every documented range and rule of the Responses request (400 when broken). */
export function validateResponsesBody(body: Body): void {
  const input = body.input;
  if (typeof input !== 'string' && !Array.isArray(input))
    invalid('Invalid value for `input`: expected a string or an array of input items');
  if (Array.isArray(input)) input.forEach(validateInputItem);
  if (body.background === true) invalid('Invalid value for `background`: background responses are not supported');
  if (body.instructions != null && body.previous_response_id != null) {
    invalid(
      '`instructions` cannot be combined with `previous_response_id`: the system prompt of the earlier ' +
        'response is used',
    );
  }
  // max_output_tokens, max_turns, reasoning_effort, reasoning.* and include: the document's (request-check.ts)
  if (body.top_logprobs != null && body.logprobs !== true) invalid('`top_logprobs` requires `logprobs` to be true');
  validateTools(body);
  const fmt = body.text?.format;
  if (fmt != null) {
    if (!['text', 'json_object', 'json_schema'].includes(fmt.type))
      invalid('Invalid value for `text.format.type`: must be text, json_object or json_schema');
    if (fmt.type === 'json_schema' && (typeof fmt.schema !== 'object' || fmt.schema === null))
      invalid('`text.format.schema` is required for json_schema');
  }
  const sp = body.search_parameters;
  if (sp != null) {
    // mode and max_search_results: the document's enum and range (request-check.ts)
    for (const f of ['from_date', 'to_date'])
      if (sp[f] != null && !DATE.test(sp[f]))
        invalid(`Invalid value for \`search_parameters.${f}\`: expected YYYY-MM-DD`);
  }
}

/** One item of an `input` list: a message, a function call or its output, a compaction or a reasoning item. */
function validateInputItem(it: Item, i: number): void {
  if (!it || typeof it !== 'object') invalid(`Invalid value for \`input[${i}]\`: expected an object`);
  const type = it.type ?? (it.role ? 'message' : undefined);
  if (type === 'message') {
    if (!ROLES.includes(it.role)) invalid(`Invalid value for \`input[${i}].role\`: must be one of ${ROLES.join(', ')}`);
    if (typeof it.content !== 'string' && !Array.isArray(it.content))
      invalid(`Invalid value for \`input[${i}].content\`: expected a string or an array of content parts`);
  } else if (type === 'function_call_output') {
    if (typeof it.call_id !== 'string') invalid(`Invalid value for \`input[${i}].call_id\`: a string is required`);
    if (typeof it.output !== 'string') invalid(`Invalid value for \`input[${i}].output\`: a string is required`);
  } else if (type === 'function_call') {
    if (typeof it.call_id !== 'string' || typeof it.name !== 'string')
      invalid(`Invalid value for \`input[${i}]\`: a function_call needs call_id and name`);
  } else if (type === 'compaction') {
    if (typeof it.encrypted_content !== 'string')
      invalid(`Invalid value for \`input[${i}].encrypted_content\`: a string is required`);
  } else if (type !== 'reasoning') {
    invalid(`Invalid value for \`input[${i}].type\`: ${JSON.stringify(type)} is not an input item type`);
  }
}

/** `tools` (flat function tools and the built-in kinds) and a `tool_choice` that names one of them. */
function validateTools(body: Body): void {
  // tools: an array of at most 128, as the document says (request-check.ts)
  if (body.tools != null) {
    body.tools.forEach((t: Body, i: number) => {
      if (t?.type === 'function') {
        if (typeof t.name !== 'string' || !t.name)
          invalid(`Invalid value for \`tools[${i}]\`: a function tool is flat: {type: "function", name, parameters}`);
      } else if (!TOOL_TYPES.includes(t?.type)) {
        invalid(`Invalid value for \`tools[${i}].type\`: ${JSON.stringify(t?.type)} is not a supported tool type`);
      }
    });
  }
  const tc = body.tool_choice;
  if (tc != null) {
    if (typeof tc === 'string') {
      if (!(SCHEMAS.ResponsesRequest['$.tool_choice'].enum as readonly string[]).includes(tc))
        invalid('Invalid value for `tool_choice`: must be none, auto, required or {type: "function", name}');
    } else if (
      tc.type !== 'function' ||
      typeof tc.name !== 'string' ||
      !body.tools?.some((t: Body) => t.name === tc.name)
    ) {
      invalid('Invalid value for `tool_choice`: the forced function must be one of `tools`');
    }
  }
}

// ---- compaction: the opaque item carries the dropped turns' digest ----

interface CompactState {
  v: 1;
  summary: string;
  dropped: number;
}

function encodeCompaction(state: CompactState): string {
  return `emu1.${Buffer.from(JSON.stringify(state)).toString('base64url')}`;
}

function decodeCompaction(s: string): CompactState {
  try {
    if (!s.startsWith('emu1.')) throw new Error('prefix');
    return JSON.parse(Buffer.from(s.slice(5), 'base64url').toString('utf8')) as CompactState;
  } catch {
    return invalid('Invalid value for `encrypted_content`: the compaction item is not one this service produced');
  }
}

// ---- items and turns ----

function normalizeInput(core: Backend, input: string | Item[]): Item[] {
  const list: Item[] = typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : input;
  return list.map((it) => {
    const type = it.type ?? 'message';
    const prefix =
      type === 'message'
        ? 'msg'
        : type === 'function_call_output'
          ? 'fco'
          : type === 'function_call'
            ? 'fc'
            : type === 'compaction'
              ? 'cmp'
              : 'rs';
    // ids the caller gives (items of earlier responses) are kept, so input_items match the outputs they came from
    return { ...it, type, id: typeof it.id === 'string' ? it.id : core.id(prefix) };
  });
}

function turnsOf(items: Item[], instructions: string | null): EngineTurn[] {
  const turns: EngineTurn[] = [];
  if (instructions) turns.push({ role: 'system', text: instructions, images: 0 });
  for (const it of items) {
    switch (it.type) {
      case 'message': {
        const { text, images } = contentText(it.content);
        turns.push({ role: it.role, text, images });
        break;
      }
      case 'function_call':
        turns.push({ role: 'assistant', text: `${it.name}(${it.arguments ?? ''})`, images: 0 });
        break;
      case 'function_call_output':
        turns.push({ role: 'tool', text: String(it.output), images: 0, toolResult: true });
        break;
      case 'compaction': {
        const st = decodeCompaction(it.encrypted_content);
        turns.push({ role: 'system', text: `Summary of the earlier conversation: ${st.summary}`, images: 0 });
        break;
      }
      default:
        break; // reasoning items carry nothing the emulator's model reads
    }
  }
  return turns;
}

function toolsOf(body: Body): EngineTool[] {
  return (body.tools ?? [])
    .filter((t: Body) => t.type === 'function')
    .map((t: Body) => ({ name: t.name, description: t.description, parameters: t.parameters }));
}

interface Generated {
  model: LanguageModel;
  reply: EngineReply;
  items: Item[];
  instructions: string | null;
  output: Item[];
  status: 'completed' | 'incomplete';
  usage: Body;
}

/** `reasoning.effort`, or the top-level `reasoning_effort` when no `reasoning` object is given. */
function effortOf(body: Body): string | undefined {
  return body.reasoning?.effort ?? (body.reasoning == null ? body.reasoning_effort : undefined);
}

function generate(core: Backend, req: EmuRequest, body: Body): Generated {
  const model = requireLanguageModel(body.model);
  core.checkModelAcl(req, model.id);
  const effort = effortOf(body);
  if (effort != null && !model.reasoning)
    invalid(`Model ${model.id} does not support reasoning effort; reasoning is supported by svc-4-reasoning`);

  const { items, instructions } = contextOf(core, req, body);
  const turns = turnsOf(items, instructions);
  if (!turns.some((t) => t.role !== 'system')) invalid('Invalid value for `input`: there is no user input to answer');
  if (!model.input_modalities.includes('image') && turns.some((t) => t.images > 0))
    invalid(`Model ${model.id} does not accept image input`);

  const fmt = body.text?.format;
  const tc = body.tool_choice;
  const reply = generateWithToolPlan({
    model,
    turns,
    tools: toolsOf(body),
    toolChoice: typeof tc === 'object' && tc ? tc.name : tc,
    format:
      fmt?.type === 'json_schema'
        ? { type: 'json_schema', schema: fmt.schema, name: fmt.name }
        : fmt?.type === 'json_object'
          ? { type: 'json_object' }
          : undefined,
    maxTokens: body.max_output_tokens ?? undefined,
    seed: core.textSeed(body.seed ?? undefined),
    reasoning: !!model.reasoning && effort !== 'none',
    search: body.search_parameters != null && body.search_parameters.mode !== 'off',
  });
  const output = outputItems(core, body, reply);
  const status = reply.finishReason === 'length' ? 'incomplete' : 'completed';
  return { model, reply, items, instructions, output, status, usage: usageOf(model, reply) };
}

/**
 * The whole context the model sees: the earlier response's items and output (previous_response_id), then this
 * input; and the system prompt in force. A tool result must answer a call the model made.
 */
function contextOf(core: Backend, req: EmuRequest, body: Body): { items: Item[]; instructions: string | null } {
  let prior: Item[] = [];
  let instructions: string | null = body.instructions ?? null;
  if (body.previous_response_id != null) {
    const prev = store(core).get(String(body.previous_response_id));
    if (!prev || prev.team !== req.key?.team_id || prev.response.created_at + THIRTY_DAYS < core.nowSec()) {
      invalid(`Previous response with id '${body.previous_response_id}' not found`);
    }
    prior = [...prev.items, ...prev.response.output];
    instructions = prev.instructions;
  }
  const items = [...prior, ...normalizeInput(core, body.input)];
  const calls = new Set(items.filter((it) => it.type === 'function_call').map((it) => it.call_id));
  for (const it of items) {
    if (it.type === 'function_call_output' && !calls.has(it.call_id))
      invalid(`No tool call found for function call output with call_id ${it.call_id}`);
  }
  return { items, instructions };
}

/** The reply as output items: its reasoning, then its tool calls or else its message. */
function outputItems(core: Backend, body: Body, reply: EngineReply): Item[] {
  const output: Item[] = [];
  if (reply.reasoning) {
    const rs: Item = {
      id: core.id('rs'),
      type: 'reasoning',
      status: 'completed',
      summary: [{ type: 'summary_text', text: reply.reasoning }],
    };
    if (body.include?.includes('reasoning.encrypted_content'))
      rs.encrypted_content = Buffer.from(reply.reasoning).toString('base64');
    output.push(rs);
  }
  for (const call of reply.toolCalls) {
    output.push({
      id: core.id('fc'),
      type: 'function_call',
      status: 'completed',
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
    });
  }
  if (!reply.toolCalls.length) {
    const annotations = reply.citations.map((url) => ({
      type: 'url_citation',
      url,
      title: null,
      start_index: 0,
      end_index: reply.text.length,
    }));
    output.push({
      id: core.id('msg'),
      type: 'message',
      role: 'assistant',
      status: reply.finishReason === 'length' ? 'incomplete' : 'completed',
      content: [{ type: 'output_text', text: reply.text, logprobs: [], annotations }],
    });
  }
  return output;
}

function usageOf(model: LanguageModel, reply: EngineReply): Body {
  const inputTokens = reply.promptTokens;
  const outputTokens = reply.completionTokens + reply.reasoningTokens;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reply.reasoningTokens },
    total_tokens: inputTokens + outputTokens,
    num_sources_used: reply.citations.length,
    num_server_side_tools_used: 0,
    cost_in_usd_ticks: costTicks(model, inputTokens, outputTokens),
  };
}

function responseObject(
  core: Backend,
  body: Body,
  g: Generated | undefined,
  id: string,
  status: string,
  createdAt: number,
): Body {
  const tc = body.tool_choice;
  const effort = effortOf(body);
  return {
    id,
    object: 'response',
    created_at: createdAt,
    completed_at: status === 'completed' ? core.nowSec() : null,
    status,
    background: false,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: g?.instructions ?? body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: null,
    model: g?.model.id ?? String(body.model),
    output: status === 'in_progress' ? [] : (g?.output ?? []),
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: g?.model.reasoning ? { effort: effort ?? 'low', summary: 'detailed' } : { effort: null, summary: null },
    safety_identifier: null,
    service_tier: body.service_tier === 'priority' ? 'priority' : 'default',
    store: body.store !== false,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: 'text' } },
    tool_choice: typeof tc === 'object' && tc ? { type: 'function', name: tc.name } : (tc ?? 'auto'),
    tools: body.tools ?? [],
    top_logprobs: body.top_logprobs ?? 0,
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    user: body.user ?? null,
    metadata: body.metadata ?? {},
    frequency_penalty: 0,
    presence_penalty: 0,
    usage: status === 'in_progress' ? null : (g?.usage ?? null),
  };
}

function save(core: Backend, req: EmuRequest, body: Body, g: Generated, response: Body): void {
  if (body.store === false) return;
  store(core).set(response.id, {
    team: req.key?.team_id ?? '',
    response,
    items: g.items,
    instructions: g.instructions,
  });
  core.store.save();
}

/** Sends one event of the stream; false once the client has gone. */
type Emit = (type: string, fields: Body) => Promise<boolean>;

async function streamResponse(
  core: Backend,
  req: EmuRequest,
  res: EmuResponse,
  body: Body,
  g: Generated,
): Promise<void> {
  const id = core.uuid();
  const createdAt = core.nowSec();
  const sse = res.sse();
  let seq = 0;
  const send: Emit = (type, fields) => sse.send({ type, sequence_number: seq++, ...fields }, type);
  const delay = () => core.sleep(core.settings.tokenDelayMs);
  const final = responseObject(core, body, g, id, g.status, createdAt);
  const pending = responseObject(core, body, g, id, 'in_progress', createdAt);
  if (!(await send('response.created', { response: pending }))) return;
  if (!(await send('response.in_progress', { response: pending }))) return;
  for (const [outputIndex, item] of g.output.entries()) {
    if (!(await streamItem(send, delay, item, outputIndex, g.reply.pieces))) return;
  }
  // stored before the last event, so a client that reads it can continue at once
  save(core, req, body, g, final);
  if (!(await send(g.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final })))
    return;
  sse.done();
}

/** One output item's events, from output_item.added to output_item.done; false once the client has gone. */
async function streamItem(
  send: Emit,
  delay: () => Promise<void>,
  item: Item,
  outputIndex: number,
  pieces: string[],
): Promise<boolean> {
  const start =
    item.type === 'message'
      ? { ...item, status: 'in_progress', content: [] }
      : item.type === 'reasoning'
        ? { ...item, status: 'in_progress', summary: [] }
        : { ...item, status: 'in_progress', arguments: '' };
  if (!(await send('response.output_item.added', { output_index: outputIndex, item: start }))) return false;
  const streamed =
    item.type === 'reasoning'
      ? await streamReasoning(send, delay, item, outputIndex)
      : item.type === 'function_call'
        ? await streamArguments(send, delay, item, outputIndex)
        : item.type === 'message'
          ? await streamMessage(send, delay, item, outputIndex, pieces)
          : true;
  return streamed && send('response.output_item.done', { output_index: outputIndex, item });
}

/** A reasoning item's summary, word by word. */
async function streamReasoning(send: Emit, delay: () => Promise<void>, item: Item, outputIndex: number) {
  const at = { item_id: item.id, output_index: outputIndex, summary_index: 0 };
  const text: string = item.summary[0].text;
  if (!(await send('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } })))
    return false;
  for (const piece of text.match(/\S+\s*/g) ?? []) {
    await delay();
    if (!(await send('response.reasoning_summary_text.delta', { ...at, delta: piece }))) return false;
  }
  if (!(await send('response.reasoning_summary_text.done', { ...at, text }))) return false;
  return send('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } });
}

/** A function call's arguments, in two halves. */
async function streamArguments(send: Emit, delay: () => Promise<void>, item: Item, outputIndex: number) {
  const at = { item_id: item.id, output_index: outputIndex };
  const args: string = item.arguments;
  const half = Math.ceil(args.length / 2);
  for (const delta of [args.slice(0, half), args.slice(half)]) {
    await delay();
    if (!(await send('response.function_call_arguments.delta', { ...at, delta }))) return false;
  }
  return send('response.function_call_arguments.done', { ...at, arguments: args });
}

/** A message's text, piece by piece as generated. */
async function streamMessage(
  send: Emit,
  delay: () => Promise<void>,
  item: Item,
  outputIndex: number,
  pieces: string[],
) {
  const at = { item_id: item.id, output_index: outputIndex, content_index: 0 };
  const part = item.content[0];
  if (!(await send('response.content_part.added', { ...at, part: { ...part, text: '' } }))) return false;
  for (const piece of pieces) {
    await delay();
    if (!(await send('response.output_text.delta', { ...at, delta: piece, logprobs: [] }))) return false;
  }
  if (!(await send('response.output_text.done', { ...at, text: part.text, logprobs: [] }))) return false;
  return send('response.content_part.done', { ...at, part });
}

const create: Handler = async (req, res, core) => {
  const body = await req.json<Body>();
  body.model ??= DEFAULT_MODEL;
  validateResponsesBody(body);
  checkAttachedFiles(core, req, Array.isArray(body.input) ? body.input : []);
  const g = generate(core, req, body);
  if (body.stream) return streamResponse(core, req, res, body, g);
  const response = responseObject(core, body, g, core.uuid(), g.status, core.nowSec());
  save(core, req, body, g, response);
  res.json(200, response);
};

const compact: Handler = async (req, res, core) => {
  const body = await req.json<Body>();
  const model = requireLanguageModel(body.model);
  core.checkModelAcl(req, model.id);
  validateResponsesBody({ input: body.input });
  const items = normalizeInput(core, body.input);
  const lines: string[] = [];
  let dropped = 0;
  for (const it of items) {
    if (it.type === 'compaction') {
      const st = decodeCompaction(it.encrypted_content);
      lines.push(st.summary);
      dropped += st.dropped;
    } else if (it.type === 'message') {
      lines.push(`${it.role}: ${contentText(it.content).text.replace(/\s+/g, ' ').slice(0, 160)}`);
      dropped++;
    } else if (it.type === 'function_call') {
      lines.push(`assistant called ${it.name}`);
      dropped++;
    } else if (it.type === 'function_call_output') {
      lines.push(`tool: ${String(it.output).slice(0, 80)}`);
      dropped++;
    }
  }
  const summary = lines.join(' | ').slice(0, 4000);
  const inputTokens = items.reduce(
    (n, it) => n + countTokens(JSON.stringify(it.content ?? it.output ?? it.encrypted_content ?? '')),
    0,
  );
  const outputTokens = countTokens(summary);
  res.json(200, {
    id: core.id('cmp'),
    object: 'response.compaction',
    created_at: core.nowSec(),
    model: model.id,
    output: [
      { type: 'compaction', id: core.id('cmp'), encrypted_content: encodeCompaction({ v: 1, summary, dropped }) },
    ],
    usage: {
      dropped_message_count: dropped,
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + outputTokens,
    },
  });
};

const getOne: Handler = (req, res, core) => {
  res.json(200, findStored(core, req, req.params.id!).response);
};

const deleteOne: Handler = (req, res, core) => {
  const rec = findStored(core, req, req.params.id!);
  store(core).delete(rec.response.id);
  core.store.save();
  res.json(200, { id: rec.response.id, object: 'response', deleted: true });
};

const inputItems: Handler = (req, res, core) => {
  const rec = findStored(core, req, req.params.id!);
  // limit and order are within the document's range and enum (request-check.ts)
  const limit = queryNumber(req, 'limit', 20);
  const order = req.query.get('order') ?? 'asc';
  const all = order === 'desc' ? [...rec.items].reverse() : rec.items;
  let start = 0;
  const after = req.query.get('after');
  if (after) {
    const i = all.findIndex((it) => it.id === after);
    if (i < 0) invalid(`Invalid value for \`after\`: no input item ${after} in response ${rec.response.id}`);
    start = i + 1;
  }
  const data = all.slice(start, start + limit);
  res.json(200, {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: start + limit < all.length,
  });
};

export function register(router: Router): void {
  router.post('/v1/responses', create);
  router.post('/v1/responses/compact', compact);
  router.get('/v1/responses/:id', getOne);
  router.delete('/v1/responses/:id', deleteOne);
  router.get('/v1/responses/:id/input_items', inputItems);
}
