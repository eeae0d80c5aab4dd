// POST /v1/messages: the third-party-compatible messages convention (JSON, or its typed event stream), with
// system, stop_sequences, sampling fields and tools ({name, description, input_schema} → tool_use blocks).
import type { Backend } from '../state/backend.js';
import { contentText, requireLanguageModel, type EngineReply, type EngineTurn } from '../text/engine.js';
import type { EmuRequest, EmuResponse, Router } from '../http/router.js';
import { invalid } from '../core/errors.js';
import { generateWithToolPlan } from '../text/tool-plan.js';
import { applyLimits } from '../text/limits.js';
import { checkAttachedFiles } from '../state/files.js';
import { SCHEMAS } from 'svc-formats/api-facts';

type Body = Record<string, any>;

/** tool_choice's types: the document's modes and the forcing one (MessagesToolChoice's arms; a union the request
 * checker leaves to the route) */
const TOOL_CHOICE_TYPES: readonly string[] = [
  ...SCHEMAS.MessagesToolChoiceMode.$.enum,
  ...SCHEMAS.MessagesToolChoice['$.type'].enum,
];

export function validateMessagesBody(body: Body): void {
  // messages: an array of at least one, each with a role of the enum; stop_sequences at most 4 strings; tools at
  // most 128: the document's (request-check.ts). A content's form is a union, worded here
  body.messages.forEach((m: Body, i: number) => {
    if (typeof m.content !== 'string' && !Array.isArray(m.content))
      invalid(`Invalid value for \`messages[${i}].content\`: expected a string or content blocks`);
  });
  if (body.messages[0].role !== 'user')
    invalid('Invalid value for `messages`: the first message must have the role user');
  if (body.system != null && typeof body.system !== 'string' && !Array.isArray(body.system))
    invalid('Invalid value for `system`: expected a string');
  if (body.tools != null) {
    body.tools.forEach((t: Body, i: number) => {
      if (typeof t?.name !== 'string' || typeof t.input_schema !== 'object')
        invalid(`Invalid value for \`tools[${i}]\`: a tool is {name, description, input_schema}`);
    });
  }
  const tc = body.tool_choice;
  if (tc != null) {
    if (!TOOL_CHOICE_TYPES.includes(tc.type))
      invalid(`Invalid value for \`tool_choice.type\`: must be one of ${TOOL_CHOICE_TYPES.join(', ')}`);
    if (tc.type === 'tool' && !body.tools?.some((t: Body) => t.name === tc.name))
      invalid('Invalid value for `tool_choice.name`: the forced tool must be one of `tools`');
  }
}

function turnsOf(body: Body): EngineTurn[] {
  const turns: EngineTurn[] = [];
  if (body.system) turns.push({ role: 'system', text: contentText(body.system).text, images: 0 });
  for (const m of body.messages as Body[]) {
    if (Array.isArray(m.content)) {
      const results = m.content.filter((b: Body) => b?.type === 'tool_result');
      if (results.length) {
        for (const r of results)
          turns.push({ role: 'tool', text: contentText(r.content).text, images: 0, toolResult: true });
        continue;
      }
    }
    const { text, images } = contentText(m.content);
    turns.push({ role: m.role, text, images });
  }
  return turns;
}

interface Made {
  id: string;
  model: string;
  reply: EngineReply;
  limited: ReturnType<typeof applyLimits>;
  content: Body[];
  stopReason: string;
  inputTokens: number;
  outputTokens: number;
}

function make(core: Backend, req: EmuRequest, body: Body): Made {
  const model = requireLanguageModel(body.model);
  core.checkModelAcl(req, model.id);
  const turns = turnsOf(body);
  if (!model.input_modalities.includes('image') && turns.some((t) => t.images > 0))
    invalid(`Model ${model.id} does not accept image input`);
  const tc = body.tool_choice;
  const reply = generateWithToolPlan({
    model,
    turns,
    tools: (body.tools ?? []).map((t: Body) => ({
      name: t.name,
      description: t.description,
      parameters: t.input_schema,
    })),
    toolChoice: tc?.type === 'tool' ? tc.name : tc?.type === 'any' ? 'required' : tc?.type,
    seed: core.textSeed(),
  });
  const limited = applyLimits(reply.text, body.stop_sequences, body.max_tokens);
  const content: Body[] = [];
  if (reply.toolCalls.length) {
    for (const c of reply.toolCalls)
      content.push({
        type: 'tool_use',
        id: `toolu_${c.id.replace(/^call_/, '')}`,
        name: c.name,
        input: JSON.parse(c.arguments),
      });
  } else content.push({ type: 'text', text: limited.text });
  const stopReason = reply.toolCalls.length
    ? 'tool_use'
    : limited.reason === 'stop'
      ? 'stop_sequence'
      : limited.reason === 'length'
        ? 'max_tokens'
        : 'end_turn';
  return {
    id: core.id('msg'),
    model: model.id,
    reply,
    limited,
    content,
    stopReason,
    inputTokens: reply.promptTokens,
    outputTokens: reply.toolCalls.length ? reply.completionTokens : limited.pieces.length,
  };
}

function messageObject(m: Made, done: boolean): Body {
  return {
    id: m.id,
    type: 'message',
    role: 'assistant',
    content: done ? m.content : [],
    model: m.model,
    stop_reason: done ? m.stopReason : null,
    stop_sequence: done ? m.limited.matched : null,
    usage: {
      input_tokens: m.inputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: done ? m.outputTokens : 1,
    },
  };
}

async function stream(core: Backend, res: EmuResponse, m: Made): Promise<void> {
  const sse = res.sse();
  const send = (type: string, fields: Body) => sse.send({ type, ...fields }, type);
  const delay = () => core.sleep(core.settings.tokenDelayMs);
  if (!(await send('message_start', { message: messageObject(m, false) }))) return;
  for (const [index, block] of m.content.entries()) {
    if (block.type === 'text') {
      if (!(await send('content_block_start', { index, content_block: { type: 'text', text: '' } }))) return;
      for (const piece of m.limited.pieces) {
        await delay();
        if (!(await send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }))) return;
      }
    } else {
      if (!(await send('content_block_start', { index, content_block: { ...block, input: {} } }))) return;
      const json = JSON.stringify(block.input);
      const half = Math.ceil(json.length / 2);
      for (const part of [json.slice(0, half), json.slice(half)]) {
        await delay();
        if (!(await send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } })))
          return;
      }
    }
    if (!(await send('content_block_stop', { index }))) return;
  }
  if (
    !(await send('message_delta', {
      delta: { stop_reason: m.stopReason, stop_sequence: m.limited.matched },
      usage: { output_tokens: m.outputTokens },
    }))
  )
    return;
  if (!(await send('message_stop', {}))) return;
  // this convention's stream ends with message_stop, without a [DONE] line
  res.raw.end();
}

export function register(router: Router): void {
  router.post('/v1/messages', async (req, res, core) => {
    const body = await req.json<Body>();
    validateMessagesBody(body);
    checkAttachedFiles(core, req, body.messages);
    const m = make(core, req, body);
    if (body.stream) return stream(core, res, m);
    res.json(200, messageObject(m, true));
  });
}
