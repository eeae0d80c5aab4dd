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
async function loadPrices(ctx: Context, http: HttpClient): Promise<Prices | undefined> {
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

/** --dry-run: the rows to send, their tokens (a local estimate) and dollars from the catalogue's prices. */
export async function dryRun(ctx: Context, spec: BatchSpec, rows: number, state: JournalState): Promise<number> {
  let chars = 0;
  let toSend = 0;
  for await (const row of rowsToSend(spec, (n) => state.done.has(n))) {
    toSend++;
    chars += promptChars(await rowBody(spec, row));
  }
  const inputTokens = Math.ceil(chars / CHARS_PER_TOKEN);
  const maxOut = spec.flags.maxTokens;
  const outputTokens = maxOut === undefined || !spec.op.priced ? undefined : maxOut * toSend;
  let usd: number | undefined;
  if (spec.op.priced) {
    const prices = await loadPrices(ctx, await ctx.http());
    const usage = { input_tokens: inputTokens, output_tokens: outputTokens ?? 0, total_tokens: 0 };
    usage.total_tokens = usage.input_tokens + usage.output_tokens;
    usd = priceCost(prices, spec.model, { usage });
  }
  const est = {
    rows,
    rows_to_send: toSend,
    rows_done: state.done.size,
    input_tokens_estimate: inputTokens,
    token_estimate: `local: ${CHARS_PER_TOKEN} characters a token`,
    ...(outputTokens !== undefined ? { output_tokens_at_most: outputTokens } : {}),
    ...(usd !== undefined ? { cost_usd_estimate: Number(usd.toFixed(6)) } : {}),
    model: spec.model || undefined,
  };
  if (ctx.out.json) ctx.out.printJson(est);
  else {
    const out = [
      `${toSend} row(s) to send${state.done.size ? ` (${state.done.size} done already)` : ''}`,
      `~${inputTokens} input tokens (local estimate, ${CHARS_PER_TOKEN} characters a token)`,
      outputTokens !== undefined ? `≤ ${outputTokens} output tokens (--max-tokens × rows)` : undefined,
      usd !== undefined
        ? `~$${usd.toFixed(4)}${outputTokens === undefined ? ' for the input (--max-tokens bounds the output)' : ''}`
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
