import type { OptionValues } from '../../core/option-spec.js';
import type { Context } from '../../runtime/context.js';
import type { ChatMessage, ChatTool } from '../../endpoints/chat.js';
import { defineCommand } from '../../cmdutil/command.js';
import { UsageError } from '../../core/errors.js';
import { CHAT_REQUEST_ROWS, buildChatRequest, checkChatFlags, userMessage, type ChatFlags } from './request.js';
import type { ChatOutcome } from './render.js';
import type { Conversation, ConversationStore } from '../../store/conversations.js';
import { DEFAULT_MAX_TURNS, toolCmdParser, defaultToolDefinition } from '../../cmdutil/local-tools.js';
import { integer, require } from '../../core/validate.js';
import {
  APPROVE_FLAG,
  ATTACH_FLAGS,
  resolveModel,
  EXTRACT_FLAGS,
  FLAG_GROUPS,
  MCP_FLAG,
  MCP_MAX_RESULT_FLAG,
  OUTPUT,
  TEMPLATE_FLAGS,
  toolCmdFlag,
} from '../../cmdutil/flag-sets.js';
import type { RequestRow, RequestTable } from '../../core/request-table.js';
import type { McpServers } from '../../mcp/client.js';
import type { Approver } from '../../cmdutil/approve.js';

export type ChatCreateFlags = OptionValues<typeof CHAT_CREATE_ROWS> & Pick<ChatFlags, 'schemaValue'>;

/** POST /v1/chat/completions as `svc chat` sends it: the request rows and this command's own. */
const CHAT_CREATE_ROWS = [
  ...CHAT_REQUEST_ROWS,
  OUTPUT.noStream,
  {
    flags: '--deferred',
    description: 'queue the request and print its request id (fetch it with `svc chat get`)',
    reaches: ['deferred'],
  },
  { flags: '--wait', description: 'with --deferred: wait for the result and print it' },
  { ...OUTPUT.usage, description: 'print token usage and cost on stderr', reaches: ['stream_options'] },
  OUTPUT.raw,
  {
    flags: '-i, --interactive',
    description:
      'a REPL: multi-line input, the conversation kept across turns, /system /model /attach /edit /retry /copy ' +
      '/usage /mcp /save /clear /exit; the input history kept per profile (Ctrl-R searches it); ' +
      'Ctrl-C cancels the answer',
  },
  { flags: '--no-history', description: 'with -i: keep no input history of this session (and read none)' },
  {
    flags: '-c, --continue',
    description: 'continue the last conversation of this profile (kept locally)',
    reaches: ['messages'],
  },
  {
    flags: '--conversation <id>',
    description: 'continue this local conversation (see `svc conversations list`)',
    reaches: ['messages'],
  },
  { flags: '--no-save', description: 'keep no local copy of this conversation' },
  {
    flags: '--save <name>',
    description:
      'save the prompt and the flags given as template NAME (as `svc templates save NAME`; use it with -t NAME) ' +
      'and send nothing',
    group: FLAG_GROUPS.template,
  },
  toolCmdFlag(toolCmdParser),
  ...TEMPLATE_FLAGS,
  ...EXTRACT_FLAGS,
  ...ATTACH_FLAGS,
  MCP_FLAG,
  MCP_MAX_RESULT_FLAG,
  APPROVE_FLAG,
  {
    flags: '--max-turns <n>',
    description: `with --tool-cmd or --mcp: at most this many model turns (1-100, default ${DEFAULT_MAX_TURNS})`,
    parse: integer({ min: 1, max: 100 }),
    group: FLAG_GROUPS.tools,
  },
] as const satisfies readonly RequestRow[];

export const CHAT_TABLE = {
  operation: 'POST /v1/chat/completions',
  rows: CHAT_CREATE_ROWS,
  inputs: { messages: 'PROMPT words joined with piped stdin', stream: 'streamed unless --no-stream' },
} as const satisfies RequestTable;

// What only a run needs (the HTTP client, the renderers, stdin) is imported in run(): `svc chat --help` loads the
// flags and nothing else (docs/performance.md).
export default defineCommand({
  description:
    'The answer streams to stdout as it is written; on a terminal with colour it is rendered as Markdown ' +
    'block by block (headings, lists, tables, highlighted code; --raw for the text as written — pipes and ' +
    '--json are always raw). Piped stdin is joined to the prompt (`cat notes.md | svc chat "summarize"`). ' +
    "Reasoning shows on a terminal's stderr; tool calls are printed (JSON lines in a pipe); -u adds usage " +
    'and cost on stderr.',
  args: [{ name: 'prompt', description: 'the prompt (joined with piped stdin)', variadic: true }],
  options: CHAT_CREATE_ROWS,
  requests: [CHAT_TABLE],
  examples: [
    'svc chat "Explain backpressure in one paragraph"',
    'cat notes.md | svc chat "summarize" > summary.md',
    'svc chat --image chart.png "what does this show?"',
    'svc chat --schema person.schema.json "invent a person"',
    'svc chat --deferred --wait "a long essay on tides"',
    'svc chat -c "and now shorter"',
    'svc chat --raw "a README for this tool"',
    'svc chat -i -s "You are terse"',
    'svc chat --tool weather.json --tool-cmd get_weather=./weather.sh "weather in Paris?"',
    'svc chat -t summarize --var lang=French < report.txt',
    'svc chat --mcp \'npx -y @modelcontextprotocol/server-filesystem .\' "which files are here?"',
  ],
  async run(ctx, [given], flags) {
    if (typeof flags.save === 'string')
      return saveAsTemplate(ctx, flags.save, (given as string[] | undefined) ?? [], flags);
    if (flags.extract || flags.extractLast) {
      if ((flags.n ?? 1) > 1) throw new UsageError('-x/--extract: one choice only (not with -n above 1)');
      (await import('../../cmdutil/answer-writer.js')).extractFlags(ctx, flags);
    }
    let words = given as string[] | undefined;
    if (flags.template) {
      const { applyTemplate } = await import('../../cmdutil/templates.js');
      words = await applyTemplate(ctx, flags as unknown as Record<string, unknown>, words ?? [], {
        command: 'svc chat',
        options: CHAT_CREATE_ROWS,
        systemKey: 'system',
        schemaKey: 'schemaValue',
        stdinIsPrompt: !flags.interactive && !ctx.streams.stdin.isTTY,
      });
    }
    const tools = checkChatFlags(flags);
    if (flags.wait && !flags.deferred) throw new UsageError('--wait: only together with --deferred');
    checkConversationFlags(flags);
    for (const c of flags.toolCmd ?? [])
      if (!tools.some((t) => t.function.name === c.name))
        tools.push({ type: 'function', function: defaultToolDefinition(c.name) });
    if (flags.maxTokens !== undefined) ctx.out.warn('--max-tokens is deprecated: use --max-completion-tokens');
    const { ConversationStore } = await import('../../store/conversations.js');
    const store = new ConversationStore(ctx.env);
    const profile = ctx.config().profile;
    const conv = continuedConversation(store, profile, flags);
    if (flags.interactive && flags.attach)
      throw new UsageError('-a: not with -i (in the REPL, /attach FILE|URL attaches to the next message)');
    const approve = flags.approve ? (await import('../../cmdutil/approve.js')).approver(ctx) : undefined;
    const mcp = flags.mcp?.length ? await startMcp(ctx, flags.mcp, tools, flags.mcpMaxResult) : undefined;
    const chat: ChatRun = {
      flags,
      tools,
      store,
      profile,
      conv,
      model: resolveModel(ctx, flags.model, conv?.model),
      mcp,
      approve,
    };
    try {
      if (flags.interactive) return await startRepl(ctx, words ?? [], chat);
      if (!flags.attach && !flags.fragment) return await answerPrompt(ctx, words ?? [], chat);
      const { attachToPrompt } = await import('../../cmdutil/attachments.js');
      const attached = await attachToPrompt(ctx, flags, words ?? [], {
        command: 'svc chat',
        files: () => import('../../endpoints/files.js'),
      });
      try {
        return await answerPrompt(ctx, attached.words, chat);
      } finally {
        await attached.cleanup();
      }
    } finally {
      await mcp?.close();
    }
  },
});

/** Flags `--save` does not keep as a template's options: its own, and those a template has keys for. */
const NOT_SAVED = [
  'save',
  'no-save',
  'template',
  'var',
  'yes',
  'model',
  'system',
  'schema',
  'continue',
  'conversation',
];

/**
 * `svc chat --save NAME …` (llm's): the prompt and the flags as typed saved as template NAME, nothing sent. What the
 * person typed is trusted: a template that runs a program is not asked about at its first use.
 */
async function saveAsTemplate(ctx: Context, name: string, words: string[], flags: ChatCreateFlags): Promise<number> {
  if (flags.template) throw new UsageError('--save: not together with -t (svc templates edit changes a template)');
  const { saveTemplate } = await import('../../cmdutil/templates.js');
  const { readJsonFile } = await import('../../cmdutil/tool-file.js');
  const { trustTemplateText } = await import('../../cmdutil/template-trust.js');
  const options: Record<string, string | number | boolean | (string | number)[]> = {};
  for (const { name: flag, raw } of ctx.givenOptions) {
    if (NOT_SAVED.includes(flag)) continue;
    const value = raw === undefined ? true : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
    const before = options[flag];
    options[flag] =
      before === undefined || typeof value === 'boolean'
        ? value
        : [...(Array.isArray(before) ? before : [before as string]), value as string];
  }
  const schema = ctx.givenOptions.find((o) => o.name === 'schema')?.raw;
  const prompt = words.join(' ').replace(/\\n/g, '\n');
  const text = await saveTemplate(
    ctx,
    name,
    {
      model: flags.model,
      system: flags.system,
      prompt: prompt || undefined,
      schema: schema === undefined ? undefined : readJsonFile('--schema', schema),
      options: Object.keys(options).length ? options : undefined,
      defaults: flags.var,
    },
    { flag: '--save' },
  );
  trustTemplateText(ctx.env, name, text);
  return 0;
}

/** --mcp: the servers started and their tools added to the request's. */
async function startMcp(ctx: Context, given: string[], tools: ChatTool[], maxResultKib?: number) {
  const { startServers } = await import('../../mcp/client.js');
  const servers = await startServers(
    ctx,
    given,
    tools.map((t) => t.function.name),
    maxResultKib,
  );
  for (const t of servers.tools)
    tools.push({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } });
  return servers;
}

/** What a run of `svc chat` works with once its flags are checked. */
interface ChatRun {
  flags: ChatCreateFlags;
  tools: ChatTool[];
  store: ConversationStore;
  profile: string;
  /** the conversation continued (-c, --conversation) */
  conv: Conversation | undefined;
  /** -m, else the conversation's model, else the profile's, else the default (resolveModel) */
  model: string;
  mcp?: McpServers;
  approve?: Approver;
}

/** The conversation -c or --conversation continues, or undefined for a new one; a usage error when there is none. */
function continuedConversation(
  store: ConversationStore,
  profile: string,
  flags: ChatCreateFlags,
): Conversation | undefined {
  if (!flags.continue && !flags.conversation) return undefined;
  const id = flags.conversation ?? store.lastId(profile);
  if (!id)
    throw new UsageError(
      `-c: there is no conversation to continue for the profile ${profile} (start one with svc chat "…")`,
    );
  const conv = store.load(id);
  if (!conv)
    throw new UsageError(`--conversation: ${id} is not a conversation kept here (see \`svc conversations list\`)`);
  if (conv.convention === 'messages')
    throw new UsageError(
      `--conversation: ${id} is a conversation of svc messages (continue it with svc messages --conversation ${id})`,
    );
  return conv;
}

/** -i: the REPL, after the first prompt given as arguments if any. */
async function startRepl(
  ctx: Context,
  words: string[],
  { flags, tools, store, profile, conv, model, mcp }: ChatRun,
): Promise<number> {
  // a REPL on a terminal waits for a person; lines piped in are answered in order (no person needed)
  const { noInputReason, refusePrompt } = await import('../../runtime/no-input.js');
  const noInput = ctx.streams.stdin.isTTY ? noInputReason(ctx.globals, ctx.env) : undefined;
  if (noInput)
    refusePrompt(
      noInput,
      'chat -i waits for you to type at the terminal',
      'send the prompt as an argument, or pipe the lines into chat -i',
    );
  const { runRepl } = await import('./interactive.js');
  conv ??= store.newConversation(profile, model);
  if (flags.system) setSystem(conv.messages, flags.system);
  const first = words.join(' ').trim();
  return runRepl(ctx, {
    flags: { ...flags, model },
    tools,
    commands: flags.toolCmd ?? [],
    mcp,
    // asked through the REPL's own line editor (the checks of approver() were made)
    approve: !!flags.approve,
    maxTurns: flags.maxTurns ?? DEFAULT_MAX_TURNS,
    conversation: conv,
    store,
    firstPrompt: first || undefined,
  });
}

/** One prompt answered (with the tool loop, queued with --deferred, whole or streamed), the conversation kept. */
async function answerPrompt(ctx: Context, words: string[], chat: ChatRun): Promise<number> {
  const { flags, conv, store, profile } = chat;
  const [{ readPrompt }, { createChat, createDeferredChat }, { printChatResponse, streamChatAnswer }] =
    await Promise.all([
      import('../../cmdutil/text-input.js'),
      import('../../endpoints/chat.js'),
      import('./render.js'),
    ]);
  const prompt = await readPrompt(ctx, words, 'svc chat');
  const messages: ChatMessage[] = conv ? [...conv.messages] : [];
  if (flags.system) setSystem(messages, flags.system);
  messages.push(userMessage(prompt, flags));
  const body = buildChatRequest(flags, messages, chat.model, chat.tools);
  const http = await ctx.http();
  const keep = (outcome: ChatOutcome, all: ChatMessage[] = [...messages, assistantMessage(outcome)]) => {
    if (flags.save === false) return;
    const c = conv ?? store.newConversation(profile, body.model);
    c.model = outcome.model ?? body.model;
    c.messages = all;
    store.save(c);
  };

  if (flags.toolCmd?.length || chat.mcp) {
    const { runToolLoop } = await import('./loop.js');
    const { messages: _m, ...base } = body;
    const outcome = await runToolLoop(ctx, http, base, messages, {
      commands: flags.toolCmd ?? [],
      mcp: chat.mcp,
      approve: chat.approve,
      maxTurns: flags.maxTurns ?? DEFAULT_MAX_TURNS,
      stream: flags.stream,
      usage: flags.usage,
    });
    keep(outcome, messages);
    return 0;
  }

  if (flags.deferred) {
    const { request_id } = await createDeferredChat(http, body);
    if (!flags.wait) {
      if (ctx.out.json) ctx.out.printJson({ request_id });
      else ctx.out.line(request_id);
      ctx.out.info(`queued; fetch the answer with: svc chat get ${request_id} --wait`);
      return 0;
    }
    const { waitForDeferred } = await import('./wait.js');
    const res = await waitForDeferred(ctx, http, request_id);
    printChatResponse(ctx, res, { usage: flags.usage });
    return 0;
  }
  if (!flags.stream) {
    keep(printChatResponse(ctx, await createChat(http, body, ctx.signal), { usage: flags.usage }));
    return 0;
  }
  // the call log records the usage of every answer
  if (flags.usage || ctx.out.json || ctx.logsCalls()) body.stream_options = { include_usage: true };
  keep(await streamChatAnswer(ctx, http, body, { usage: flags.usage, raw: flags.raw }));
  return 0;
}

/** The conversation flags (-i, -c, --conversation, --tool-cmd) and what they cannot be combined with. */
function checkConversationFlags(f: ChatCreateFlags): void {
  require(!(f.continue && f.conversation), '--conversation', f.conversation, 'not together with -c/--continue');
  for (const [on, flag] of [
    [f.interactive, '-i'],
    [f.continue, '-c'],
    [f.conversation, '--conversation'],
    [f.toolCmd?.length, '--tool-cmd'],
    [f.mcp?.length, '--mcp'],
  ] as const) {
    require(!(on && f.deferred), '--deferred', 'set', `not together with ${flag}`);
  }
  const looping = !!(f.toolCmd?.length || f.mcp?.length);
  require(!(looping && f.n !== undefined && f.n > 1), '-n', f.n, 'only 1 together with --tool-cmd or --mcp');
  require(!(f.maxTurns !== undefined && !looping), '--max-turns', f.maxTurns, 'only together with --tool-cmd or --mcp');
  require(f.history !== false || !!f.interactive, '--no-history', 'set', 'only together with -i');
  require(!(f.approve && !looping), '--approve', 'set', 'only together with --tool-cmd or --mcp');
  require(!(f.mcpMaxResult !== undefined && !f.mcp?.length), '--mcp-max-result', f.mcpMaxResult, 'only with --mcp');
}

function setSystem(messages: ChatMessage[], text: string): void {
  if (messages[0]?.role === 'system') messages[0] = { role: 'system', content: text };
  else messages.unshift({ role: 'system', content: text });
}

function assistantMessage(o: ChatOutcome): ChatMessage {
  const m: ChatMessage = { role: 'assistant', content: o.text || (o.toolCalls.length ? null : '') };
  if (o.toolCalls.length) m.tool_calls = o.toolCalls;
  return m;
}
