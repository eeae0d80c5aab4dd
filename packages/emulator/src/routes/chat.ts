// POST /v1/chat/completions (synchronous, SSE, deferred) and GET /v1/chat/deferred-completion/{id}.
import type { Backend } from '../state/backend.js';
import {
  contentText,
  costTicks,
  requireLanguageModel,
  type EngineReply,
  type EngineTool,
  type EngineTurn,
} from '../text/engine.js';
import type { EmuRequest, Router } from '../http/router.js';
import { invalid, notFound } from '../core/errors.js';
import { TOOL_CHOICE_MODES, generateWithToolPlan } from '../text/tool-plan.js';
import { checkAttachedFiles } from '../state/files.js';

type Body = Record<string, any>;

interface DeferredRecord {
  request_id: string;
  ready_at: number;
  expires_at: number;
  response: unknown;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Every documented range and rule of the chat request (400 when broken). */
export function validateChatBody(body: Body): void {
  // messages: an array of at least one, each with a role of the enum: the document's (request-check.ts)
  // n, max_completion_tokens, max_tokens and seed: the document's ranges (request-check.ts)
  if (body.top_logprobs !== undefined && body.top_logprobs !== null && body.logprobs !== true)
    invalid('`top_logprobs` requires `logprobs` to be true');
  // stop (an array of at most 4) and tools (an array of at most 128): the document's (request-check.ts)
  if (body.tools !== undefined && body.tools !== null) {
    body.tools.forEach((t: Body, i: number) => {
      if (t?.type !== 'function' || typeof t.function?.name !== 'string')
        invalid(
          `Invalid value for \`tools[${i}]\`: only function tools \`{type: "function", function: {name, ` +
            `parameters}}\` are supported`,
        );
    });
  }
  if (body.logit_bias !== undefined && body.logit_bias !== null) {
    // a bias's range is the document's (request-check.ts); a key's form, a token id, is worded here
    for (const k of Object.keys(body.logit_bias))
      if (!/^\d+$/.test(k)) invalid(`Invalid key in \`logit_bias\`: ${k} is not a token id`);
  }
  const tc = body.tool_choice;
  if (tc !== undefined && tc !== null) {
    if (typeof tc === 'string') {
      if (!TOOL_CHOICE_MODES.includes(tc))
        invalid(
          'Invalid value for `tool_choice`: must be none, auto, required or {type: "function", function: {name}}',
        );
      if (tc === 'required' && !body.tools?.length) invalid('`tool_choice` required needs at least one tool');
    } else if (
      tc.type !== 'function' ||
      typeof tc.function?.name !== 'string' ||
      !body.tools?.some((t: Body) => t.function?.name === tc.function.name)
    ) {
      invalid('Invalid value for `tool_choice`: the forced function must be one of `tools`');
    }
  }
  const rf = body.response_format;
  if (rf !== undefined && rf !== null) {
    if (!['text', 'json_object', 'json_schema'].includes(rf.type))
      invalid('Invalid value for `response_format.type`: must be text, json_object or json_schema');
    if (rf.type === 'json_schema' && (typeof rf.json_schema !== 'object' || typeof rf.json_schema?.schema !== 'object'))
      invalid('`response_format.json_schema.schema` is required for json_schema');
  }
  const sp = body.search_parameters;
  if (sp !== undefined && sp !== null) {
    // mode, max_search_results and sources[].type: the document's enum and range (request-check.ts)
    for (const f of ['from_date', 'to_date'])
      if (sp[f] != null && !DATE.test(sp[f]))
        invalid(`Invalid value for \`search_parameters.${f}\`: expected YYYY-MM-DD`);
    if (sp.from_date && sp.to_date && sp.from_date > sp.to_date)
      invalid('`search_parameters.from_date` is after `to_date`');
  }
}

export function chatTurns(messages: Body[]): EngineTurn[] {
  return messages.map((m) => {
    const { text, images } = contentText(m.content);
    return { role: m.role, text, images, toolResult: m.role === 'tool' };
  });
}

export function chatTools(tools: Body[] | undefined): EngineTool[] {
  return (tools ?? []).map((t) => ({
    name: t.function.name,
    description: t.function.description,
    parameters: t.function.parameters,
  }));
}

function replies(core: Backend, body: Body): { model: ReturnType<typeof requireLanguageModel>; list: EngineReply[] } {
  const model = requireLanguageModel(body.model);
  if (model.reasoning) {
    for (const f of ['frequency_penalty', 'presence_penalty', 'stop']) {
      if (body[f] !== undefined && body[f] !== null)
        invalid(`Argument not supported on reasoning model ${model.id}: ${f}`);
    }
  }
  if (model.legacyFamily && body.presence_penalty != null)
    invalid(`Argument not supported on model ${model.id}: presence_penalty`);
  const turns = chatTurns(body.messages);
  if (!model.input_modalities.includes('image') && turns.some((t) => t.images > 0))
    invalid(`Model ${model.id} does not accept image input`);
  const rf = body.response_format;
  const tc = body.tool_choice;
  const n = body.n ?? 1;
  const list: EngineReply[] = [];
  for (let i = 0; i < n; i++) {
    list.push(
      generateWithToolPlan({
        model,
        turns,
        tools: chatTools(body.tools),
        toolChoice: typeof tc === 'object' && tc ? tc.function.name : tc,
        format:
          rf?.type === 'json_schema'
            ? { type: 'json_schema', schema: rf.json_schema.schema, name: rf.json_schema.name }
            : rf?.type === 'json_object'
              ? { type: 'json_object' }
              : undefined,
        maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
        stop: typeof body.stop === 'string' ? [body.stop] : (body.stop ?? undefined),
        seed: core.textSeed(body.seed ?? undefined),
        variant: i,
        reasoning: !!model.reasoning && body.reasoning_effort !== 'none',
        search: body.search_parameters != null && body.search_parameters.mode !== 'off',
      }),
    );
  }
  return { model, list };
}

function usageOf(model: ReturnType<typeof requireLanguageModel>, list: EngineReply[]) {
  const prompt = list[0]?.promptTokens ?? 0;
  const completion = list.reduce((n, r) => n + r.completionTokens, 0);
  const reasoning = list.reduce((n, r) => n + r.reasoningTokens, 0);
  const sources = list[0]?.citations.length ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion + reasoning,
    prompt_tokens_details: { text_tokens: prompt, audio_tokens: 0, image_tokens: 0, cached_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
    num_sources_used: sources,
    cost_in_usd_ticks: costTicks(model, prompt, completion + reasoning),
  };
}

function toolCallsOf(r: EngineReply) {
  return r.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
}

function completion(core: Backend, body: Body, id: string) {
  const { model, list } = replies(core, body);
  const res: Record<string, unknown> = {
    id,
    object: 'chat.completion',
    created: core.nowSec(),
    model: model.id,
    choices: list.map((r, index) => ({
      index,
      message: {
        role: 'assistant',
        content: r.text,
        refusal: null,
        ...(r.reasoning ? { reasoning_content: r.reasoning } : {}),
        ...(r.toolCalls.length ? { tool_calls: toolCallsOf(r) } : {}),
      },
      finish_reason: r.finishReason,
    })),
    service_tier: body.service_tier === 'priority' ? 'priority' : 'auto',
    system_fingerprint: model.fingerprint,
    usage: usageOf(model, list),
  };
  if (list[0]?.citations.length) res.citations = list[0].citations;
  return res;
}

async function stream(core: Backend, body: Body, id: string, res: Parameters<Parameters<Router['post']>[1]>[1]) {
  const { model, list } = replies(core, body);
  const sse = res.sse();
  const created = core.nowSec();
  const base = {
    id,
    object: 'chat.completion.chunk',
    created,
    model: model.id,
    service_tier: body.service_tier === 'priority' ? 'priority' : 'auto',
    system_fingerprint: model.fingerprint,
  };
  const chunk = (
    index: number,
    delta: Record<string, unknown>,
    finish: string | null = null,
    extra: Record<string, unknown> = {},
  ) => ({
    ...base,
    choices: [{ index, delta, finish_reason: finish }],
    ...extra,
  });
  const delay = () => core.sleep(core.settings.tokenDelayMs);
  for (const [index, r] of list.entries()) {
    if (!(await sse.send(chunk(index, { role: 'assistant', content: '' })))) return;
    if (r.reasoning) {
      for (const piece of r.reasoning.match(/\S+\s*/g) ?? []) {
        await delay();
        if (!(await sse.send(chunk(index, { reasoning_content: piece })))) return;
      }
    }
    for (const piece of r.pieces) {
      await delay();
      if (!(await sse.send(chunk(index, { content: piece })))) return;
    }
    // as recorded streams of the service do: each tool call whole in one chunk (id, type, name, all arguments)
    for (const [i, call] of r.toolCalls.entries()) {
      await delay();
      if (
        !(await sse.send(
          chunk(index, {
            tool_calls: [
              { index: i, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } },
            ],
          }),
        ))
      )
        return;
    }
    const last = index === list.length - 1;
    const extra = last && r.citations.length ? { citations: r.citations } : {};
    if (!(await sse.send(chunk(index, {}, r.finishReason, extra)))) return;
  }
  if (body.stream_options?.include_usage) {
    if (!(await sse.send({ ...base, choices: [], usage: usageOf(model, list) }))) return;
  }
  sse.done();
}

function deferredStore(core: Backend) {
  return core.store.collection<DeferredRecord>('chat_deferred');
}

export function register(router: Router): void {
  router.post(
    '/v1/chat/completions',
    async (req: EmuRequest, res, core) => {
      const body = await req.json<Body>();
      validateChatBody(body);
      core.checkModelAcl(req, String(body.model));
      checkAttachedFiles(core, req, body.messages);
      const id = core.uuid();
      if (body.deferred) {
        const response = completion(core, { ...body, stream: false }, id);
        const now = core.now();
        deferredStore(core).set(id, {
          request_id: id,
          ready_at: now + core.settings.deferredDelayMs,
          expires_at: now + 24 * 3600 * 1000,
          response,
        });
        core.store.save();
        return res.json(200, { request_id: id });
      }
      if (body.stream) return stream(core, body, id, res);
      res.json(200, completion(core, body, id));
    },
    { endpoint: 'chat' },
  );

  router.get(
    '/v1/chat/deferred-completion/:id',
    (req, res, core) => {
      const store = deferredStore(core);
      const rec = store.get(req.params.id!);
      if (!rec || rec.expires_at < core.now()) notFound(`No deferred completion with request id ${req.params.id}`);
      if (core.now() < rec.ready_at) return res.empty(202);
      // A finished result is delivered once.
      store.delete(rec.request_id);
      core.store.save();
      res.json(200, rec.response);
    },
    { endpoint: 'chat' },
  );
}
