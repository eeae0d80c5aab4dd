import type { Context } from '../../core/context.js';
import { createChat, createDeferredChat, type ChatMessage } from '../../api/chat.js';
import { defineCommand } from '../../core/command.js';
import { UsageError } from '../../core/errors.js';
import { CHAT_REQUEST_OPTIONS, buildChatRequest, checkChatFlags, userMessage, type ChatFlags } from './request.js';
import { printChatResponse, streamChatAnswer } from './render.js';
import { waitForDeferred } from './wait.js';

export interface ChatCreateFlags extends ChatFlags {
  stream: boolean;
  deferred?: boolean;
  wait?: boolean;
  usage?: boolean;
}

/** The prompt: the arguments, joined with stdin when stdin is piped. */
export async function readPrompt(ctx: Context, words: string[]): Promise<string> {
  const fromArgs = words.join(' ').trim();
  let fromStdin = '';
  if (!ctx.streams.stdin.isTTY) fromStdin = (await ctx.readStdin()).replace(/\s+$/, '');
  const prompt = fromArgs && fromStdin ? `${fromArgs}\n\n${fromStdin}` : fromArgs || fromStdin;
  if (!prompt) throw new UsageError('no prompt: give it as arguments (svc chat "…") or pipe text on stdin');
  return prompt;
}

export default defineCommand<ChatCreateFlags>({
  summary: 'Chat with a model (streams by default)',
  description:
    'The answer streams to stdout as it is written. Piped stdin is joined to the prompt (`cat notes.md | svc chat "summarize"`). Reasoning shows on a terminal\'s stderr; tool calls are printed (JSON lines in a pipe); -u adds usage and cost on stderr.',
  args: [{ name: 'prompt', description: 'the prompt (joined with piped stdin)', variadic: true }],
  options: [
    ...CHAT_REQUEST_OPTIONS,
    { flags: '--no-stream', description: 'wait for the whole answer instead of streaming it' },
    { flags: '--deferred', description: 'queue the request and print its request id (fetch it with `svc chat get`)' },
    { flags: '--wait', description: 'with --deferred: wait for the result and print it' },
    { flags: '-u, --usage', description: 'print token usage and cost on stderr' },
  ],
  examples: [
    'svc chat "Explain backpressure in one paragraph"',
    'cat notes.md | svc chat "summarize" > summary.md',
    'svc chat --image chart.png "what does this show?"',
    'svc chat --schema person.schema.json "invent a person"',
    'svc chat --deferred --wait "a long essay on tides"',
  ],
  async run(ctx, [words], flags) {
    const tools = checkChatFlags(flags);
    if (flags.wait && !flags.deferred) throw new UsageError('--wait: only together with --deferred');
    if (flags.maxTokens !== undefined) ctx.out.warn('--max-tokens is deprecated: use --max-completion-tokens');
    const prompt = await readPrompt(ctx, words ?? []);
    const messages: ChatMessage[] = [];
    if (flags.system) messages.push({ role: 'system', content: flags.system });
    messages.push(userMessage(prompt, flags));
    const body = buildChatRequest(flags, messages, ctx.config().model, tools);
    const http = await ctx.http();

    if (flags.deferred) {
      const { request_id } = await createDeferredChat(http, body);
      if (!flags.wait) {
        if (ctx.out.json) ctx.out.printJson({ request_id });
        else ctx.out.line(request_id);
        ctx.out.info(`queued; fetch the answer with: svc chat get ${request_id} --wait`);
        return 0;
      }
      const res = await waitForDeferred(ctx, http, request_id);
      printChatResponse(ctx, res, { usage: flags.usage });
      return 0;
    }
    if (!flags.stream) {
      printChatResponse(ctx, await createChat(http, body, ctx.signal), { usage: flags.usage });
      return 0;
    }
    if (flags.usage || ctx.out.json) body.stream_options = { include_usage: true };
    await streamChatAnswer(ctx, http, body, { usage: flags.usage });
    return 0;
  },
});
