// The money and the voice of a simulated call: what a call's caller and judge requests cost (the catalogue's
// prices, the call log's rule), the most they may cost (apilog/budget's worst case of the largest requests a call
// can make: every line at its cap), a seed per call, and the caller's lines as speech (TTS).
import { worstCase, type WorstCase } from '../../apilog/budget.js';
import { normalizeUsage, priceCost, type Prices } from '../../apilog/log.js';
import { synthesize } from '../../endpoints/tts.js';
import type { HttpClient } from '../../net/http.js';
import { callerRequest, judgeRequest, LINE_CAP, maxToolsJudged, type Line } from './models.js';
import type { Scenario } from './scenario.js';

/** A chat call's cost from its usage at the catalogue's prices; undefined when the model has none. */
export function callCost(prices: Prices | undefined) {
  return async (model: string, usage: unknown): Promise<number | undefined> => {
    const u = normalizeUsage(usage);
    return u ? priceCost(prices, model, { usage: u }) : undefined;
  };
}

/**
 * The most one call of a scenario may cost: its caller asked max_turns times with the whole call at every line's cap
 * (each line handed on is cut at LINE_CAP), and the judge with the same call and every tool call it is shown.
 */
export function callWorstCase(
  prices: Prices | undefined,
  models: { caller: string; judge: string },
  judgeMaxTokens: number,
): (s: Scenario) => WorstCase {
  const path = '/v1/chat/completions';
  return (s) => {
    const full = 'x'.repeat(LINE_CAP);
    const lines: Line[] = Array.from({ length: 2 * s.maxTurns }, (_, i) => ({
      who: i % 2 ? 'agent' : 'caller',
      text: full,
    }));
    const tools = Array.from({ length: maxToolsJudged(s) }, () => ({ name: full, arguments: full, result: full }));
    const caller = worstCase(prices, path, callerRequest(s, models.caller, lines));
    const call = { lines, tools, endedBy: 'turn_limit' };
    const judge = worstCase(prices, path, judgeRequest(s, call, { model: models.judge, maxTokens: judgeMaxTokens }));
    if (!caller || !judge) return { usd: Number.NaN, what: 'no price rule for chat' };
    return {
      usd: s.maxTurns * caller.usd + judge.usd,
      what: `${s.maxTurns} caller line(s) ${caller.what}; the judge ${judge.what}`,
    };
  };
}

/** A call's seed from the run's --seed, its scenario and its run (a 31-bit FNV-1a hash). */
export function planSeed(seed: number, scenario: string, run: number): number {
  let h = 2166136261;
  for (const ch of `${seed}\u0000${scenario}\u0000${run}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return (h >>> 0) & 0x7fffffff;
}

/** The caller's voice: TTS of a line as 24 kHz mono pcm16, the realtime session's input format. */
export function speaker(http: HttpClient) {
  return async (text: string, signal: AbortSignal): Promise<Buffer> => {
    const got = await synthesize(
      http,
      { text, language: 'en', output_format: { codec: 'pcm', sample_rate: 24_000 } },
      signal,
    );
    if (got.kind === 'json') return got.audio;
    const parts: Buffer[] = [];
    for await (const chunk of got.body) parts.push(Buffer.from(chunk));
    return Buffer.concat(parts);
  };
}
