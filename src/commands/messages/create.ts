import type { ChatTool } from '../../api/chat.js';
import type { MessagesRequest, MessagesResponse } from '../../api/messages.js';
import { defineCommand } from '../../core/command.js';
import { integer, number, repeatable, require } from '../../core/validate.js';
import { readPrompt } from '../chat/create.js';
import { DEFAULT_CHAT_MODEL, parseToolFile } from '../chat/request.js';

interface Opts {
  model?: string;
  system?: string;
  maxTokens: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  stream?: boolean;
  tool?: ChatTool[][];
  toolChoice?: string;
  usage?: boolean;
}

export const DEFAULT_MAX_TOKENS = 1024;

export default defineCommand<Opts>({
  summary: 'Send a prompt in the messages convention (POST /v1/messages)',
  description:
    'The third-party-compatible messages convention. The prompt is the arguments, joined with piped stdin. Prints the text blocks; tool_use blocks are printed as JSON lines. --stream prints the text as it arrives; --json prints the message (or, with --stream, each event) as the API sent it.',
  args: [{ name: 'prompt', description: 'the user message (joined with piped stdin)', variadic: true }],
  options: [
    { flags: '-m, --model <id>', description: `model id or alias (default: the profile's model, else ${DEFAULT_CHAT_MODEL})` },
    { flags: '-s, --system <text>', description: 'system prompt' },
    { flags: '--max-tokens <n>', description: `cap on output tokens (1 to 2147483647; default ${DEFAULT_MAX_TOKENS})`, default: DEFAULT_MAX_TOKENS, parse: integer({ min: 1, int32: true }) },
    { flags: '-t, --temperature <n>', description: 'sampling temperature (0-2)', parse: number({ min: 0, max: 2 }) },
    { flags: '--top-p <n>', description: 'nucleus sampling (greater than 0, at most 1)', parse: number({ min: 0, minExclusive: true, max: 1 }) },
    { flags: '--top-k <n>', description: 'only the k most likely tokens (1 to 2147483647)', parse: integer({ min: 1, int32: true }) },
    { flags: '--stop <sequence>', description: 'stop sequence (repeatable, at most 4)', parse: repeatable(undefined, { max: 4 }) },
    { flags: '--stream', description: 'print the answer as it is written' },
    { flags: '--tool <file>', description: 'tool(s) from a JSON file (repeatable; at most 128); sent as {name, description, input_schema}', parse: repeatable((raw, flag) => parseToolFile(raw, flag)) },
    { flags: '--tool-choice <choice>', description: 'auto, any, none, or a tool name to force' },
    { flags: '-u, --usage', description: 'print token usage on stderr' },
  ],
  examples: ['svc messages "Write a limerick about queues"', 'cat draft.md | svc messages -s "You are an editor" "tighten this" --stream'],
  async run(ctx, [words], opts) {
    const tools = (opts.tool ?? []).flat();
    require(tools.length <= 128, '--tool', `${tools.length} tools`, 'at most 128 tools in all');
    if (opts.toolChoice !== undefined) {
      require(['auto', 'any', 'none'].includes(opts.toolChoice) || tools.some((t) => t.function.name === opts.toolChoice), '--tool-choice', opts.toolChoice, `auto, any, none, or the name of a --tool${tools.length ? ` (${tools.map((t) => t.function.name).join(', ')})` : ''}`);
      require(opts.toolChoice !== 'any' || tools.length > 0, '--tool-choice', opts.toolChoice, 'any needs at least one --tool');
    }
    const prompt = await readPrompt(ctx, (words as string[] | undefined) ?? []);
    const body: MessagesRequest = { model: opts.model ?? ctx.config().model ?? DEFAULT_CHAT_MODEL, max_tokens: opts.maxTokens, messages: [{ role: 'user', content: prompt }] };
    if (opts.system) body.system = opts.system;
    if (opts.temperature !== undefined) body.temperature = opts.temperature;
    if (opts.topP !== undefined) body.top_p = opts.topP;
    if (opts.topK !== undefined) body.top_k = opts.topK;
    if (opts.stop) body.stop_sequences = opts.stop;
    if (tools.length) body.tools = tools.map((t) => ({ name: t.function.name, description: t.function.description, input_schema: t.function.parameters ?? { type: 'object', properties: {} } }));
    if (opts.toolChoice) body.tool_choice = ['auto', 'any', 'none'].includes(opts.toolChoice) ? { type: opts.toolChoice } : { type: 'tool', name: opts.toolChoice };
    const api = await import('../../api/messages.js');
    const http = await ctx.http();
    let msg: MessagesResponse;
    if (opts.stream) {
      try {
        msg = await api.consumeMessageStream(api.streamMessageEvents(http, body, ctx.signal), {
          onEvent: (ev) => {
            if (ctx.out.json) ctx.out.printJsonLine(ev);
          },
          onText: (t) => {
            if (!ctx.out.json) ctx.out.write(t);
          },
        });
      } finally {
        if (!ctx.out.json) ctx.out.endLine();
      }
    } else {
      msg = await api.createMessage(http, body, ctx.signal);
      if (ctx.out.json) ctx.out.printJson(msg);
      else {
        const text = api.messageText(msg);
        if (text) ctx.out.line(text.replace(/\n$/, ''));
      }
    }
    if (!ctx.out.json) {
      for (const b of msg.content) {
        if (b.type !== 'tool_use') continue;
        const u = b as { id: string; name: string; input: unknown };
        if (ctx.out.stdoutIsTTY) ctx.out.line(`${ctx.out.c.cyan('tool use')} ${u.name}(${JSON.stringify(u.input)}) ${ctx.out.c.dim(u.id)}`);
        else ctx.out.printJsonLine({ id: u.id, name: u.name, input: u.input });
      }
    }
    if (msg.stop_reason === 'max_tokens') ctx.out.warn(`the answer was cut off at ${opts.maxTokens} tokens (--max-tokens)`);
    if (opts.usage && msg.usage) ctx.out.info(ctx.out.ce.dim(`usage: ${msg.usage.input_tokens} input + ${msg.usage.output_tokens} output tokens · ${msg.model}`));
    return 0;
  },
});
