// The money of a batch: prices from the catalogue (cached for a day, as the call log's), a row's cost when the
// API did not say it, what the run may spend (--budget less what earlier runs of the journal spent, and what the
// daily budget of the call log has left), and --dry-run's estimate.
import type { Context } from '../runtime/context.js';
import type { HttpClient } from '../net/http.js';
import { BudgetError, UsageError } from '../core/errors.js';
import {
  cachedPrices,
  logDir,
  priceCost,
  pricesFromCatalogue,
  spentToday,
  type CallUsage,
  type Prices,
} from '../apilog/log.js';
import type { JournalState } from './journal.js';
import { rowBody, rowsToSend, type BatchSpec } from './plan.js';

/** A local estimate of tokens: about four characters of text a token (no request is sent for it). */
export const CHARS_PER_TOKEN = 4;

/** The catalogue's prices (every kind that bills: language, embedding, image and video models), cached for a day. */
export async function loadPrices(ctx: Context, http: HttpClient): Promise<Prices | undefined> {
  const cached = ctx.globals.emulator ? undefined : cachedPrices(ctx.env, Date.now());
  if (cached) return cached;
  const models: unknown[] = [];
  const kinds = ['language-models', 'embedding-models', 'image-generation-models', 'video-generation-models'];
  for (const path of kinds.map((k) => `/v1/${k}`)) {
    try {
      const body = await http.json<{ models?: unknown[]; data?: unknown[] }>('GET', path);
      models.push(...(body.models ?? body.data ?? []));
    } catch {
      // no prices of this kind: costs stay unknown rather than guessed
    }
  }
  return models.length ? pricesFromCatalogue({ models }, Date.now()) : undefined;
}

/** A cost function that loads the prices once, when a reply first needs them. */
export function rowCostFrom(ctx: Context, http: HttpClient) {
  let prices: Promise<Prices | undefined> | undefined;
  return async (model: string, billed: { usage?: CallUsage; images?: number }): Promise<number | undefined> => {
    prices ??= loadPrices(ctx, http);
    return priceCost(await prices, model, billed);
  };
}

/**
 * The most a row's body may cost (apilog/budget's rule: its input bytes and its cap on output tokens at the model's
 * price), with the catalogue's prices loaded once, before the first row.
 */
export async function rowWorstCase(ctx: Context, http: HttpClient, spec: BatchSpec) {
  const { worstCase } = await import('../apilog/budget.js');
  const prices = await loadPrices(ctx, http);
  const path = spec.op.endpoint.split(' ')[1]!;
  return (body: Record<string, unknown>) => worstCase(prices, path, body);
}

/** What this run may spend: --budget less what the journal's earlier runs spent, and today's budget.daily left. */
export async function spendable(ctx: Context, budget: number | undefined, spentBefore: number) {
  let limit = budget === undefined ? undefined : budget - spentBefore;
  const daily = ctx.config().profileData['budget.daily'];
  if (daily !== undefined && !ctx.globals.emulator) {
    const left = Number(daily) - spentToday(logDir(ctx.env), new Date());
    if (left <= 0 && ctx.globals.budgetStrict)
      throw new BudgetError(`--budget-strict: today's spend has reached budget.daily $${daily}; nothing was sent`);
    limit = limit === undefined ? left : Math.min(limit, left);
  }
  if (limit !== undefined && limit <= 0 && budget !== undefined && limit === budget - spentBefore)
    throw new UsageError(
      `--budget: $${budget} is spent already by the rows done ($${spentBefore.toFixed(4)}); raise it to go on`,
    );
  return limit;
}

/** --dry-run's assumption for an answer with no max tokens: a typical length (stated with the estimate) */
const TYPICAL_ANSWER_TOKENS = 500;

/** a body's own bound on its answer (--max-tokens, a JSON line's field, messages' required max_tokens) */
const answerCap = (body: Record<string, unknown>) =>
  [body.max_completion_tokens, body.max_output_tokens, body.max_tokens].find((v) => typeof v === 'number') as
    | number
    | undefined;

/** --dry-run: the rows to send, their tokens in and out (local estimates) and dollars from the catalogue's prices. */
export async function dryRun(ctx: Context, spec: BatchSpec, rows: number, state: JournalState): Promise<number> {
  let chars = 0;
  let toSend = 0;
  let outputTokens = 0;
  let capped = 0;
  const answers = ['chat', 'responses', 'messages'].includes(spec.op.name);
  for await (const row of rowsToSend(spec, (n) => state.done.has(n))) {
    toSend++;
    const body = await rowBody(spec, row);
    chars += promptChars(body);
    const cap = answers ? answerCap(body) : undefined;
    if (cap !== undefined) capped++;
    outputTokens += answers ? (cap ?? TYPICAL_ANSWER_TOKENS) : 0;
  }
  const inputTokens = Math.ceil(chars / CHARS_PER_TOKEN);
  const basis = !answers
    ? undefined
    : capped === toSend
      ? { json: 'at most: max tokens a row', text: 'at most: the max tokens of each row' }
      : capped === 0
        ? {
            json: `typical: ${TYPICAL_ANSWER_TOKENS} tokens a row`,
            text: `a typical answer of ${TYPICAL_ANSWER_TOKENS} tokens a row: an assumption; --max-tokens bounds it`,
          }
        : {
            json: `max tokens, else typical: ${TYPICAL_ANSWER_TOKENS} tokens a row`,
            text: `each row's max tokens, else a typical ${TYPICAL_ANSWER_TOKENS}: an assumption`,
          };
  let usd: { input?: number; output?: number } = {};
  if (spec.op.priced) {
    const prices = await loadPrices(ctx, await ctx.http());
    const cost = (input: number, output: number) =>
      priceCost(prices, spec.model, {
        usage: { input_tokens: input, output_tokens: output, total_tokens: input + output },
      });
    usd = { input: cost(inputTokens, 0), output: basis ? cost(0, outputTokens) : undefined };
  }
  const total = usd.input === undefined ? undefined : usd.input + (usd.output ?? 0);
  const est = {
    rows,
    rows_to_send: toSend,
    rows_done: state.done.size,
    input_tokens_estimate: inputTokens,
    token_estimate: `local: ${CHARS_PER_TOKEN} characters a token`,
    ...(basis ? { output_tokens_estimate: outputTokens, output_estimate: basis.json } : {}),
    ...(basis && capped === toSend ? { output_tokens_at_most: outputTokens } : {}),
    ...(usd.input !== undefined ? { cost_usd_input_estimate: Number(usd.input.toFixed(6)) } : {}),
    ...(usd.output !== undefined ? { cost_usd_output_estimate: Number(usd.output.toFixed(6)) } : {}),
    ...(total !== undefined ? { cost_usd_estimate: Number(total.toFixed(6)) } : {}),
    model: spec.model || undefined,
  };
  if (ctx.out.json) ctx.out.printJson(est);
  else {
    const dollars = (v: number | undefined) => (v === undefined ? '' : ` · ~$${v.toFixed(4)}`);
    const out = [
      `${toSend} row(s) to send${state.done.size ? ` (${state.done.size} done already)` : ''}`,
      `~${inputTokens} input tokens (local estimate, ${CHARS_PER_TOKEN} characters a token)${dollars(usd.input)}`,
      basis
        ? `${capped === toSend ? '≤' : '~'}${outputTokens} output tokens (${basis.text})${dollars(usd.output)}`
        : undefined,
      total !== undefined
        ? `~$${total.toFixed(4)} in all`
        : spec.op.priced
          ? `no price known for ${spec.model}`
          : `${spec.op.name} replies carry no usage: no dollar estimate`,
    ];
    for (const l of out) if (l) ctx.out.line(l);
  }
  return 0;
}

/** The characters of a body's text: its prompt, messages, input or text fields. */
function promptChars(body: Record<string, unknown>): number {
  let n = 0;
  const walk = (v: unknown, key?: string): void => {
    if (typeof v === 'string') {
      if (key && ['content', 'text', 'input', 'prompt', 'system', 'instructions', 'query'].includes(key)) n += v.length;
    } else if (Array.isArray(v)) for (const x of v) walk(x, key);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(body);
  return n;
}
