// Printing chat answers: streamed text to stdout as it arrives, reasoning to a terminal's stderr, tool calls,
// citations and usage. Shared by `svc chat`, `svc chat get` and the REPL.
import { tokenSum } from '../../term/usage.js';
import {
  ToolCallAccumulator,
  streamChat,
  type ChatChunk,
  type ChatRequest,
  type ChatResponse,
  type ChatUsage,
  type ToolCall,
} from '../../endpoints/chat.js';
import type { Context } from '../../runtime/context.js';
import { InterruptedError } from '../../core/errors.js';
import type { HttpClient } from '../../net/http.js';
import { answerWriter, printAnswer } from '../../cmdutil/answer-writer.js';

export interface ChatOutcome {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  usage?: ChatUsage | null;
  citations?: string[];
  model?: string;
}

/** One line for -u: tokens and cost (cost_in_usd_ticks: 1e10 ticks = 1 USD). */
export function usageLine(usage: ChatUsage | null | undefined, model?: string): string {
  if (!usage) return 'usage: not reported';
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  const sum = tokenSum(
    [usage.prompt_tokens, 'prompt'],
    [usage.completion_tokens, 'completion'],
    reasoning,
    usage.total_tokens,
  );
  let line = `usage: ${sum}`;
  if (typeof usage.cost_in_usd_ticks === 'number') line += ` · $${(usage.cost_in_usd_ticks / 1e10).toFixed(6)}`;
  if (usage.num_sources_used) line += ` · ${usage.num_sources_used} sources`;
  if (model) line += ` · ${model}`;
  return line;
}

/** Tool calls are data: one JSON object per line in a pipe, a readable line on a terminal. */
export function printToolCalls(ctx: Context, calls: ToolCall[]): void {
  for (const call of calls) {
    let args: unknown = call.function.arguments;
    try {
      args = JSON.parse(call.function.arguments);
    } catch {
      // keep the raw string when it is not JSON
    }
    if (ctx.out.stdoutIsTTY)
      ctx.out.line(
        `${ctx.out.c.cyan('tool call')} ${call.function.name}(${JSON.stringify(args)}) ${ctx.out.c.dim(call.id)}`,
      );
    else ctx.out.printJsonLine({ id: call.id, name: call.function.name, arguments: args });
  }
}

export function printEpilogue(ctx: Context, o: ChatOutcome, opts: { usage?: boolean }): void {
  if (o.finishReason === 'length') ctx.out.warn('the answer was cut off at the token limit (--max-completion-tokens)');
  if (o.citations?.length) {
    ctx.out.info(ctx.out.ce.dim('sources:'));
    for (const c of o.citations) ctx.out.info(ctx.out.ce.dim(`  ${c}`));
  }
  if (opts.usage) ctx.out.asked(ctx.out.ce.dim(usageLine(o.usage, o.model)));
}

/** The line that separates the choices of an answer with -n > 1 (streamed or not). */
function choiceHeader(ctx: Context, index: number): void {
  const text = `--- choice ${index} ---`;
  ctx.out.line(ctx.out.stdoutIsTTY ? ctx.out.c.dim(text) : text);
}

/** Print a finished (non-streamed) chat response. */
export function printChatResponse(ctx: Context, res: ChatResponse, opts: { usage?: boolean }): ChatOutcome {
  if (ctx.out.json) {
    ctx.out.printJson(res);
    return outcomeOf(res);
  }
  const many = res.choices.length > 1;
  for (const choice of res.choices) {
    if (many) choiceHeader(ctx, choice.index);
    if (choice.message.reasoning_content && ctx.out.stderrIsTTY)
      ctx.out.stderrWrite(`${ctx.out.ce.dim(choice.message.reasoning_content.trim())}\n`);
    if (choice.message.content) printAnswer(ctx, choice.message.content);
    if (choice.message.refusal) ctx.out.warn(`refused: ${choice.message.refusal}`);
    if (choice.message.tool_calls?.length) printToolCalls(ctx, choice.message.tool_calls);
  }
  const o = outcomeOf(res);
  printEpilogue(ctx, o, opts);
  return o;
}

export function outcomeOf(res: ChatResponse): ChatOutcome {
  const first = res.choices[0];
  return {
    text: first?.message.content ?? '',
    reasoning: first?.message.reasoning_content ?? '',
    toolCalls: first?.message.tool_calls ?? [],
    finishReason: first?.finish_reason ?? null,
    usage: res.usage,
    citations: res.citations,
    model: res.model,
  };
}

/**
 * Stream a chat answer: choice 0's text goes to stdout the moment it arrives; other choices are printed after.
 * On a drop or Ctrl-C what was printed stays, the line is ended, and the error goes up.
 */
export async function streamChatAnswer(
  ctx: Context,
  http: HttpClient,
  body: ChatRequest,
  opts: { usage?: boolean; signal?: AbortSignal; quietEpilogue?: boolean; showToolCalls?: boolean; raw?: boolean },
): Promise<ChatOutcome> {
  const signal = opts.signal ?? ctx.signal;
  const answer = await answerWriter(ctx, opts.raw);
  const tools = new ToolCallAccumulator();
  const others = new Map<number, string>();
  const outcome: ChatOutcome = { text: '', reasoning: '', toolCalls: [], finishReason: null };
  let reasoningOpen = false;
  const showReasoning = ctx.out.stderrIsTTY && !ctx.globals.quiet && !ctx.out.json;
  // with several choices, choice 0 streams under its header like the others
  let headerDue = typeof body.n === 'number' && body.n > 1 && !ctx.out.json;
  const header0 = () => {
    if (headerDue) choiceHeader(ctx, 0);
    headerDue = false;
  };
  const closeReasoning = () => {
    if (reasoningOpen) ctx.out.stderrWrite('\n');
    reasoningOpen = false;
  };
  try {
    for await (const chunk of streamChat(http, body, signal)) {
      if (ctx.out.json) ctx.out.printJsonLine(chunk);
      collectChunk(chunk, outcome);
      for (const choice of chunk.choices ?? []) {
        const d = choice.delta ?? {};
        if (choice.index === 0) {
          if (d.reasoning_content) {
            outcome.reasoning += d.reasoning_content;
            if (showReasoning) {
              reasoningOpen = true;
              ctx.out.stderrWrite(ctx.out.ce.dim(d.reasoning_content));
            }
          }
          if (d.content) {
            closeReasoning();
            header0();
            outcome.text += d.content;
            answer.write(d.content);
          }
          if (d.tool_calls) tools.add(d.tool_calls);
          if (choice.finish_reason) outcome.finishReason = choice.finish_reason;
        } else if (d.content) {
          others.set(choice.index, (others.get(choice.index) ?? '') + d.content);
        }
      }
    }
    await answer.end();
  } catch (err) {
    closeReasoning();
    // what arrived stays: the block in progress is printed as it stands
    await answer.end().catch(() => undefined);
    if (!ctx.out.json && (ctx.out.stdoutIsTTY || !(err instanceof InterruptedError))) ctx.out.endLine();
    throw err;
  }
  closeReasoning();
  outcome.toolCalls = tools.list();
  ctx.logCall({ model: outcome.model, usage: outcome.usage, answer: outcome.text });
  if (!ctx.out.json) {
    header0();
    ctx.out.endLine();
    for (const [index, text] of [...others.entries()].sort(([a], [b]) => a - b)) {
      choiceHeader(ctx, index);
      ctx.out.line(text.replace(/\n$/, ''));
    }
    if (outcome.toolCalls.length && opts.showToolCalls !== false) printToolCalls(ctx, outcome.toolCalls);
    if (!opts.quietEpilogue) printEpilogue(ctx, outcome, opts);
  } else if (opts.usage && !opts.quietEpilogue) {
    ctx.out.asked(usageLine(outcome.usage, outcome.model));
  }
  return outcome;
}

function collectChunk(chunk: ChatChunk, outcome: ChatOutcome): void {
  if (chunk.usage) outcome.usage = chunk.usage;
  if (chunk.citations) outcome.citations = chunk.citations;
  if (chunk.model) outcome.model = chunk.model;
}
