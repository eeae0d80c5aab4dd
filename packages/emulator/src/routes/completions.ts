// The legacy text endpoints: POST /v1/completions (text completion) and POST /v1/complete (human/assistant
// prompt). Neither is supported by reasoning models (400).
import type { LanguageModel } from '../text/catalog.js';
import { costTicks, generateReply, requireLanguageModel } from '../text/engine.js';
import type { EmuRequest, EmuResponse, Handler, Router } from '../http/router.js';
import { invalid } from '../core/errors.js';
import type { Backend } from '../state/backend.js';
import { countTokens } from '../text/tokenizer.js';
import { SCHEMAS } from 'svc-formats/api-facts';
import { applyLimits } from '../text/limits.js';

/** the most choices one request makes: n's bound in the document, also for all the prompts together */
const MAX_CHOICES = SCHEMAS.TextCompletionRequest['$.n'].maximum;

type Body = Record<string, any>;
type Choice = Body & { pieces: string[] };

function legacyModel(core: Backend, req: EmuRequest, id: unknown, endpoint: string): LanguageModel {
  const model = requireLanguageModel(id);
  core.checkModelAcl(req, model.id);
  if (model.reasoning) {
    invalid(
      `Model ${model.id} is a reasoning model and is not supported by the legacy ${endpoint} endpoint; use ` +
        `/v1/chat/completions or /v1/responses`,
    );
  }
  return model;
}

function checkStops(body: Body, field: string): string[] | undefined {
  const v = body[field];
  if (v == null) return undefined;
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || list.some((s) => typeof s !== 'string'))
    invalid(`Invalid value for \`${field}\`: expected an array of strings`);
  if (list.length > 4) invalid(`Invalid value for \`${field}\`: at most 4 stop sequences (got ${list.length})`);
  return list;
}

/**
 * `stream: true`: server-sent text_completion chunks, one piece of one choice each (choices one after the other),
 * a chunk with its finish_reason closing each choice, the usage chunk when asked for, then `[DONE]`.
 */
async function streamCompletion(
  core: Backend,
  res: EmuResponse,
  head: Body,
  choices: Choice[],
  usage: Body | undefined,
  fingerprint: string,
): Promise<void> {
  const sse = res.sse();
  const chunk = (index: number, text: string, finish: string | null) => ({
    ...head,
    choices: [{ index, text, logprobs: null, finish_reason: finish }],
    system_fingerprint: fingerprint,
  });
  for (const c of choices) {
    for (const piece of c.pieces) {
      await core.sleep(core.settings.tokenDelayMs);
      if (!(await sse.send(chunk(c.index, piece, null)))) return;
    }
    if (!(await sse.send(chunk(c.index, '', c.finish_reason)))) return;
  }
  if (usage && !(await sse.send({ ...head, choices: [], usage, system_fingerprint: fingerprint }))) return;
  sse.done();
}

/** POST /v1/completions: n choices for each prompt, whole or streamed. */
const textCompletion: Handler = async (req, res, core) => {
  const body = await req.json<Body>();
  const prompts = checkPrompts(body);
  const stop = checkStops(body, 'stop');
  const model = legacyModel(core, req, body.model, 'completions');
  if (body.stream_options != null && (typeof body.stream_options !== 'object' || !body.stream))
    invalid('`stream_options` is only allowed with `stream: true`');
  const { choices, promptTokens, completionTokens } = completionChoices(core, model, prompts, body, stop);
  const head = { id: core.uuid(), object: 'text_completion', created: core.nowSec(), model: model.id };
  const usage = completionUsage(model, promptTokens, completionTokens);
  if (body.stream)
    return streamCompletion(
      core,
      res,
      head,
      choices,
      body.stream_options?.include_usage ? usage : undefined,
      model.fingerprint,
    );
  res.json(200, {
    ...head,
    choices: choices.map(({ pieces: _, ...c }) => c),
    usage,
    system_fingerprint: model.fingerprint,
  });
};

/** `prompt` (a string or a list of them), `max_tokens` and `n`, and no more choices than the emulator makes. */
function checkPrompts(body: Body): string[] {
  const prompts: unknown[] = typeof body.prompt === 'string' ? [body.prompt] : body.prompt;
  if (!Array.isArray(prompts) || prompts.length === 0 || prompts.some((p) => typeof p !== 'string'))
    invalid('Invalid value for `prompt`: expected a string or an array of strings');
  // seed, max_tokens and n: the document's ranges (request-check.ts); the product of prompts and n is the emulator's
  if (prompts.length * (body.n ?? 1) > MAX_CHOICES)
    invalid(
      `Too many choices: ${prompts.length} prompts × n ${body.n ?? 1}; the emulator generates at most ` +
        `${MAX_CHOICES} per request`,
    );
  return prompts as string[];
}

/** n choices for each prompt, in order (choice index p × n + i), and the tokens they count. */
function completionChoices(
  core: Backend,
  model: LanguageModel,
  prompts: string[],
  body: Body,
  stop: string[] | undefined,
): { choices: Choice[]; promptTokens: number; completionTokens: number } {
  const n: number = body.n ?? 1;
  const choices: Choice[] = [];
  let promptTokens = 0;
  let completionTokens = 0;
  prompts.forEach((prompt, p) => {
    promptTokens += countTokens(prompt);
    for (let i = 0; i < n; i++) {
      const reply = generateReply({
        model,
        turns: [{ role: 'user', text: prompt, images: 0 }],
        seed: core.textSeed(body.seed ?? undefined),
        variant: i,
      });
      const lim = applyLimits(reply.text, stop, body.max_tokens ?? 16);
      completionTokens += lim.pieces.length;
      const pieces = body.echo ? [prompt, ...lim.pieces] : lim.pieces;
      choices.push({
        index: p * n + i,
        text: pieces.join(''),
        logprobs: null,
        finish_reason: lim.reason === 'length' ? 'length' : 'stop',
        pieces,
      });
    }
  });
  return { choices, promptTokens, completionTokens };
}

function completionUsage(model: LanguageModel, promptTokens: number, completionTokens: number): Body {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { text_tokens: promptTokens, audio_tokens: 0, image_tokens: 0, cached_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
    cost_in_usd_ticks: costTicks(model, promptTokens, completionTokens),
  };
}

/** POST /v1/complete: the last human turn of a prompt of "\n\nHuman:" and "\n\nAssistant:" turns answered. */
const humanAssistantCompletion: Handler = async (req, res, core) => {
  const body = await req.json<Body>();
  // prompt: a string, as the document says (request-check.ts)
  if (!body.prompt.includes('\n\nHuman:') || !/\n\nAssistant:\s*$/.test(body.prompt)) {
    invalid('Invalid value for `prompt`: it must contain "\\n\\nHuman:" turns and end with "\\n\\nAssistant:"');
  }
  const stop = checkStops(body, 'stop_sequences');
  const model = legacyModel(core, req, body.model, 'complete');
  // the last human turn is what gets answered
  const turns = body.prompt
    .split(/\n\n(?=Human:|Assistant:)/)
    .filter((s: string) => s.trim())
    .map((s: string) => {
      const human = s.startsWith('Human:');
      return { role: human ? 'user' : 'assistant', text: s.replace(/^(Human|Assistant):\s*/, ''), images: 0 };
    })
    .filter((t: { text: string }) => t.text.trim());
  const reply = generateReply({ model, turns, seed: core.textSeed() });
  const lim = applyLimits(reply.text, stop, body.max_tokens_to_sample);
  res.json(200, {
    type: 'completion',
    id: core.id('compl'),
    completion: ` ${lim.text}`,
    stop_reason: lim.reason === 'length' ? 'max_tokens' : 'stop_sequence',
    stop: lim.matched,
    model: model.id,
  });
};

export function register(router: Router): void {
  router.post('/v1/completions', textCompletion);
  router.post('/v1/complete', humanAssistantCompletion);
}
