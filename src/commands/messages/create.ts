import { answerWriter, extractFlags, printAnswer } from '../../cmdutil/answer-writer.js';
import type { ChatTool } from '../../endpoints/chat.js';
import type { MessagesRequest, MessagesResponse } from '../../endpoints/messages.js';
import { defineCommand } from '../../cmdutil/command.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../core/errors.js';
import { tokenSum } from '../../term/usage.js';
import {
  FLAG_GROUPS,
  TEMPLATE_FLAGS,
  EXTRACT_FLAGS,
  ATTACH_FLAGS,
  OUTPUT,
  modelFlag,
  resolveModel,
  sampling,
  toolChoiceFlag,
  toolFlag,
} from '../../cmdutil/flag-sets.js';
import { parseJsonOrText, readInputText } from '../../cmdutil/json-input.js';
import type { OptionValues } from '../../core/option-spec.js';
import { apiFacts } from '../../core/lazy-api-facts.js';
import { fillBody, type RequestTable } from '../../core/request-table.js';
import { joinWithStdin } from '../../cmdutil/text-input.js';
import { checkTools } from '../../cmdutil/tool-file.js';
import { fail, integer, require } from '../../core/validate.js';
import type { Conversation, ConversationStore } from '../../store/conversations.js';

type Opts = OptionValues<typeof MESSAGES_TABLE.rows>;

type Message = MessagesRequest['messages'][number];

export const DEFAULT_MAX_TOKENS = 1024;
/** tool_choice's modes (the document's MessagesToolChoiceMode; else a tool is forced), read when needed */
const messagesToolChoices = () => apiFacts().SCHEMAS.MessagesToolChoiceMode.$.enum;

export const MESSAGES_TABLE = {
  operation: 'POST /v1/messages',
  rows: [
    modelFlag(),
    {
      flags: '-s, --system <text>',
      description: 'system prompt (replaces the one of --input or a continued conversation)',
      reaches: ['system'],
    },
    {
      flags: '--input <file|->',
      description:
        'earlier turns: a JSON array of {role, content}, {system, messages}, JSON lines, or text (a user turn)',
      reaches: ['messages', 'system'],
    },
    {
      flags: '-c, --continue',
      description: 'continue the last messages conversation of this profile (kept locally)',
      reaches: ['messages'],
    },
    {
      flags: '--conversation <id>',
      description: 'continue this local conversation (see `svc conversations list`)',
      reaches: ['messages'],
    },
    { flags: '--no-save', description: 'keep no local copy of this conversation' },
    {
      flags: '--max-tokens <n>',
      description: 'cap on output tokens (1 to 2147483647)',
      default: DEFAULT_MAX_TOKENS,
      parse: integer({ min: 1, int32: true }),
      field: 'max_tokens',
    },
    ...sampling(['temperature', 'topP', 'topK', 'stop'], { stop: 'stop_sequences' }),
    OUTPUT.stream,
    toolFlag('tool(s) from a JSON file (repeatable; at most 128); sent as {name, description, input_schema}'),
    toolChoiceFlag(messagesToolChoices, 'a tool name'),
    { ...OUTPUT.usage, group: FLAG_GROUPS.output },
    OUTPUT.raw,
    ...EXTRACT_FLAGS,
    ...TEMPLATE_FLAGS,
    ...ATTACH_FLAGS.filter((f) => !f.flags.includes('--keep')),
  ],
  inputs: { messages: 'PROMPT words joined with piped stdin (a new user turn)' },
} as const satisfies RequestTable;

/** The answer's tool_use blocks: a line each on a terminal, a JSON line each in a pipe (--json prints the reply). */
function printToolUses(ctx: Context, content: { type: string }[]): void {
  for (const b of content) {
    if (b.type !== 'tool_use') continue;
    const u = b as unknown as { id: string; name: string; input: unknown };
    if (ctx.out.stdoutIsTTY)
      ctx.out.line(`${ctx.out.c.cyan('tool use')} ${u.name}(${JSON.stringify(u.input)}) ${ctx.out.c.dim(u.id)}`);
    else ctx.out.printJsonLine({ id: u.id, name: u.name, input: u.input });
  }
}

/** -a on messages: text attachments only (the convention here sends no uploaded file; cmdutil/attachments.ts). */
async function attachText(ctx: Context, opts: Opts, words: string[]): Promise<string[]> {
  const { attachToPrompt } = await import('../../cmdutil/attachments.js');
  return (await attachToPrompt(ctx, opts, words, { command: 'svc messages' })).words;
}

/** -t NAME: the template's flags filled in, and the prompt it makes (cmdutil/templates.ts). */
async function templated(ctx: Context, opts: Opts, words: string[]): Promise<string[]> {
  const { applyTemplate } = await import('../../cmdutil/templates.js');
  return (await applyTemplate(ctx, opts as unknown as Record<string, unknown>, words, {
    command: 'svc messages',
    options: MESSAGES_TABLE.rows,
    systemKey: 'system',
    stdinIsPrompt: opts.input !== '-' && !ctx.streams.stdin.isTTY,
  }))!;
}

export default defineCommand({
  description:
    'The third-party-compatible messages convention. The prompt is the arguments, joined with piped stdin; ' +
    '--input FILE adds earlier turns and -c continues the last conversation (kept locally, like `svc chat`). ' +
    'Prints the text blocks; tool_use blocks are printed as JSON lines. --stream prints the text as it ' +
    'arrives; --json prints the message (or, with --stream, each event) as the API sent it.',
  args: [{ name: 'prompt', description: 'the user message (joined with piped stdin)', variadic: true }],
  options: MESSAGES_TABLE.rows,
  requests: [MESSAGES_TABLE],
  examples: [
    'svc messages "Write a limerick about queues"',
    'cat draft.md | svc messages -s "You are an editor" "tighten this" --stream',
    'svc messages --input history.json "and now in French"',
    'svc messages -c "shorter, please"',
    'svc messages -t summarize --var lang=French < report.txt',
  ],
  async run(ctx, [given], opts) {
    extractFlags(ctx, opts);
    let words = opts.template ? await templated(ctx, opts, (given as string[] | undefined) ?? []) : given;
    if (opts.attach || opts.fragment) words = await attachText(ctx, opts, (words as string[] | undefined) ?? []);
    const tools = checkTools(opts.tool, opts.toolChoice, messagesToolChoices, 'any') as ChatTool[];
    require(!(
      opts.continue && opts.conversation
    ), '--conversation', opts.conversation, 'not together with -c/--continue');
    require(!(
      (opts.continue || opts.conversation) &&
      opts.input
    ), '--input', opts.input, 'not together with -c/--conversation');
    const { ConversationStore } = await import('../../store/conversations.js');
    const store = new ConversationStore(ctx.env);
    const profile = ctx.config().profile;
    const conv = loadConversation(store, profile, opts);
    let system: string | undefined;
    const messages: Message[] = [];
    for (const m of conv?.messages ?? []) {
      if (m.role === 'system') system = typeof m.content === 'string' ? m.content : undefined;
      else messages.push(m as Message);
    }
    if (opts.input) {
      const earlier = await readConversation(ctx, opts.input);
      system = earlier.system;
      messages.push(...earlier.messages);
    }
    if (opts.system !== undefined) system = opts.system;
    const prompt = await joinWithStdin(
      ctx,
      (words as string[] | undefined) ?? [],
      !ctx.streams.stdin.isTTY && opts.input !== '-',
    );
    if (prompt) messages.push({ role: 'user', content: prompt });
    if (!messages.length || messages[messages.length - 1]!.role !== 'user') {
      throw new UsageError(
        messages.length
          ? 'no prompt: the conversation ends with an assistant turn; add one as arguments (svc messages "…") ' +
              'or on stdin'
          : 'no prompt: give it as arguments (svc messages "…"), pipe text on stdin, or use --input FILE',
      );
    }
    const model = resolveModel(ctx, opts.model, conv?.model);
    const body = fillBody(MESSAGES_TABLE.rows, opts, { model, messages } as MessagesRequest);
    if (system) body.system = system;
    if (tools.length)
      body.tools = tools.map((t) => ({
        name: t.function.name,
        description: t.function.description,
        input_schema: t.function.parameters ?? { type: 'object', properties: {} },
      }));
    if (opts.toolChoice) {
      const mode = messagesToolChoices().find((m) => m === opts.toolChoice);
      body.tool_choice = mode ? { type: mode } : { type: 'tool', name: opts.toolChoice };
    }
    const msg = await send(ctx, body, !!opts.stream, opts.raw);
    if (opts.save !== false) {
      const c = conv ?? store.newConversation(profile, msg.model ?? model, undefined, 'messages');
      c.model = msg.model ?? model;
      c.messages = [
        ...(system ? [{ role: 'system' as const, content: system }] : []),
        ...messages,
        { role: 'assistant', content: msg.content },
      ] as Conversation['messages'];
      store.save(c);
    }
    if (!ctx.out.json) printToolUses(ctx, msg.content);
    if (msg.stop_reason === 'max_tokens')
      ctx.out.warn(`the answer was cut off at ${opts.maxTokens} tokens (--max-tokens)`);
    if (opts.usage && msg.usage) ctx.out.asked(ctx.out.ce.dim(await messagesUsageLine(ctx, msg)));
    return 0;
  },
});

/** -u: tokens and, as chat shows it, the cost (this convention sends none: the catalogue's prices, when known). */
async function messagesUsageLine(ctx: Context, msg: MessagesResponse): Promise<string> {
  const u = msg.usage!;
  const total = u.input_tokens + u.output_tokens;
  let line = `usage: ${tokenSum([u.input_tokens, 'input'], [u.output_tokens, 'output'], undefined, total)}`;
  const cost = await ctx.costOf(msg.model, u);
  if (cost !== undefined) line += ` · $${cost.toFixed(6)}`;
  return msg.model ? `${line} · ${msg.model}` : line;
}

function loadConversation(store: ConversationStore, profile: string, opts: Opts): Conversation | undefined {
  if (!opts.continue && !opts.conversation) return undefined;
  const id = opts.conversation ?? store.lastId(profile, 'messages');
  if (!id)
    throw new UsageError(
      `-c: there is no messages conversation to continue for the profile ${profile} (start one with svc messages "…")`,
    );
  const conv = store.load(id);
  if (!conv)
    throw new UsageError(`--conversation: ${id} is not a conversation kept here (see \`svc conversations list\`)`);
  if (conv.convention !== 'messages')
    throw new UsageError(
      `--conversation: ${id} is a conversation of svc chat (continue it with svc chat --conversation ${id})`,
    );
  return conv;
}

/** --input: earlier turns (and a system prompt) as JSON, JSON lines, or a text that is one user turn. */
async function readConversation(ctx: Context, path: string): Promise<{ system?: string; messages: Message[] }> {
  const source = path === '-' ? 'stdin' : path;
  const parsed = parseJsonOrText(await readInputText(ctx, '--input', path), '--input', source);
  if (parsed.kind === 'text') return { messages: [{ role: 'user', content: parsed.text.replace(/\s+$/, '') }] };
  let value: unknown = parsed.kind === 'lines' ? parsed.values : parsed.value;
  let system: string | undefined;
  if (typeof value === 'string') return { messages: [{ role: 'user', content: value }] };
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if (Array.isArray(o.messages)) {
      if (typeof o.system === 'string') system = o.system;
      value = o.messages;
    } else value = [o];
  }
  const messages: Message[] = [];
  (value as unknown[]).forEach((m, i) => {
    const r = m as Record<string, unknown> | null;
    if (r?.role === 'system' && typeof r.content === 'string') {
      system = r.content;
      return;
    }
    if (
      !r ||
      (r.role !== 'user' && r.role !== 'assistant') ||
      !(typeof r.content === 'string' || Array.isArray(r.content))
    ) {
      fail('--input', `${source}[${i}]`, 'messages of {role: user|assistant, content: text or an array of blocks}');
    }
    messages.push({ role: r.role, content: r.content } as Message);
  });
  return { system, messages };
}

async function send(ctx: Context, body: MessagesRequest, stream: boolean, raw?: boolean): Promise<MessagesResponse> {
  const api = await import('../../endpoints/messages.js');
  const http = await ctx.http();
  if (!stream) {
    const msg = await api.createMessage(http, body, ctx.signal);
    if (ctx.out.json) ctx.out.printJson(msg);
    else {
      const text = api.messageText(msg);
      printAnswer(ctx, text);
    }
    return msg;
  }
  const answer = await answerWriter(ctx, raw);
  try {
    const msg = await api.consumeMessageStream(api.streamMessageEvents(http, body, ctx.signal), {
      onEvent: (ev) => {
        if (ctx.out.json) ctx.out.printJsonLine(ev);
      },
      onText: (t) => answer.write(t),
    });
    ctx.logCall({ model: msg.model, usage: msg.usage, answer: api.messageText(msg) });
    return msg;
  } finally {
    await answer.end();
    if (!ctx.out.json) ctx.out.endLine();
  }
}
