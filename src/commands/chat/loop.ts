// The local tool loop of `svc chat --tool-cmd NAME=COMMAND` and `--mcp 'COMMAND ARGS'` (also used by the REPL): each
// call of a bound tool runs its command or goes to its MCP server (after a yes on the terminal with --approve), the
// results go back as tool messages (an MCP tool's images as image parts), and the model continues until it answers,
// at most --max-turns model turns. Text streams to stdout as usual; the tool runs are noted on stderr.
import { createChat, type ChatMessage, type ChatRequest, type ChatUsage } from '../../endpoints/chat.js';
import type { Context } from '../../runtime/context.js';
import type { HttpClient } from '../../net/http.js';
import {
  DECLINED,
  MaxTurnsError,
  runToolCommand,
  type PendingCall,
  type ToolCommand,
} from '../../cmdutil/local-tools.js';
import type { McpServers } from '../../mcp/client.js';
import type { Approver } from '../../cmdutil/approve.js';
import { outcomeOf, printEpilogue, printToolCalls, streamChatAnswer, type ChatOutcome } from './render.js';

export interface LoopOptions {
  commands: ToolCommand[];
  /** the tools of --mcp servers */
  mcp?: McpServers;
  /** --approve: asks before each call; false declines it (the model is told) */
  approve?: Approver;
  maxTurns: number;
  stream: boolean;
  usage?: boolean;
  signal?: AbortSignal;
}

/**
 * One model turn, printed as it arrives (text to stdout, reasoning to a terminal's stderr); tool calls are returned,
 * not printed.
 */
export async function chatTurn(
  ctx: Context,
  http: HttpClient,
  body: ChatRequest,
  stream: boolean,
  signal: AbortSignal,
): Promise<ChatOutcome> {
  if (stream) {
    return streamChatAnswer(
      ctx,
      http,
      { ...body, stream_options: { include_usage: true } },
      { signal, quietEpilogue: true, showToolCalls: false },
    );
  }
  const res = await createChat(http, body, signal);
  const outcome = outcomeOf(res);
  if (ctx.out.json) ctx.out.printJson(res);
  else {
    if (outcome.reasoning && ctx.out.stderrIsTTY && !ctx.globals.quiet)
      ctx.out.stderrWrite(`${ctx.out.ce.dim(outcome.reasoning.trim())}\n`);
    if (outcome.text) ctx.out.line(outcome.text.replace(/\n$/, ''));
  }
  return outcome;
}

export function addUsage(
  a: ChatUsage | null | undefined,
  b: ChatUsage | null | undefined,
): ChatUsage | null | undefined {
  if (!a) return b;
  if (!b) return a;
  return {
    ...b,
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
    completion_tokens_details: {
      reasoning_tokens:
        (a.completion_tokens_details?.reasoning_tokens ?? 0) + (b.completion_tokens_details?.reasoning_tokens ?? 0),
    },
    ...(typeof b.cost_in_usd_ticks === 'number'
      ? { cost_in_usd_ticks: (a.cost_in_usd_ticks ?? 0) + b.cost_in_usd_ticks }
      : {}),
  };
}

/**
 * Model turns until an answer without tool calls (appended to `messages` as they happen). A call of a tool that
 * has no command ends the loop with the calls printed, as plain `svc chat` does.
 */
export async function runToolLoop(
  ctx: Context,
  http: HttpClient,
  base: Omit<ChatRequest, 'messages'>,
  messages: ChatMessage[],
  opts: LoopOptions,
): Promise<ChatOutcome> {
  const signal = opts.signal ?? ctx.signal;
  let usage: ChatUsage | null | undefined;
  let outcome: ChatOutcome;
  for (let turn = 1; ; turn++) {
    outcome = await chatTurn(ctx, http, { ...base, messages } as ChatRequest, opts.stream, signal);
    usage = addUsage(usage, outcome.usage);
    const assistant: ChatMessage = {
      role: 'assistant',
      content: outcome.text || (outcome.toolCalls.length ? null : ''),
    };
    if (outcome.toolCalls.length) assistant.tool_calls = outcome.toolCalls;
    messages.push(assistant);
    if (!outcome.toolCalls.length) break;
    const pending: PendingCall[] = outcome.toolCalls.map((c) => ({
      id: c.id,
      name: c.function.name,
      arguments: c.function.arguments,
    }));
    const bound = (c: PendingCall) => opts.commands.some((t) => t.name === c.name) || !!opts.mcp?.has(c.name);
    if (!pending.every(bound)) {
      if (!ctx.out.json) printToolCalls(ctx, outcome.toolCalls);
      break;
    }
    if (turn >= opts.maxTurns) throw new MaxTurnsError(opts.maxTurns, pending);
    for (const call of pending) messages.push(await toolMessage(ctx, call, opts, signal));
  }
  outcome.usage = usage;
  if (!ctx.out.json) printEpilogue(ctx, outcome, { usage: opts.usage });
  return outcome;
}

/** The answer to one call: its command's output, or its MCP server's result (text, images as image parts). */
async function toolMessage(
  ctx: Context,
  call: PendingCall,
  opts: LoopOptions,
  signal: AbortSignal,
): Promise<ChatMessage> {
  const answer = (content: ChatMessage['content']): ChatMessage => ({ role: 'tool', tool_call_id: call.id, content });
  if (opts.approve && !(await opts.approve(call))) return answer(DECLINED);
  ctx.out.info(ctx.out.ce.dim(`running ${call.name} ${call.arguments}`));
  const command = opts.commands.find((t) => t.name === call.name);
  if (command) return answer(await runToolCommand(command.command, call.arguments || '{}', { signal }));
  const r = await opts.mcp!.call(call.name, call.arguments);
  const text = r.isError ? JSON.stringify({ error: r.text }) : r.text;
  if (!r.images.length) return answer(text);
  return answer([
    { type: 'text', text },
    ...r.images.map((i) => ({ type: 'image_url' as const, image_url: { url: `data:${i.mimeType};base64,${i.data}` } })),
  ]);
}
