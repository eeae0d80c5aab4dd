// `svc chat -i`: a REPL. Multi-line input (a line ending in \ continues; """ opens and closes a block), the
// conversation kept across turns (and saved locally after each one), the /commands of COMMANDS (Tab completes them,
// and /model's ids from the catalogue), the input history kept across runs (store/repl-history.ts; Ctrl-R searches
// it). Ctrl-C cancels the answer in progress and keeps the REPL; at an empty prompt it asks for a second one.
// The prompt and notes go to stderr, answers to stdout; without a terminal each stdin line is a turn.
import type { ChatMessage, ChatRequest, ChatTool, ChatUsage } from '../../endpoints/chat.js';
import { type ConversationStore, messageText, type Conversation } from '../../store/conversations.js';
import type { Context } from '../../runtime/context.js';
import { InterruptedError, describeError } from '../../core/errors.js';
import type { HttpClient } from '../../net/http.js';
import type { ToolCommand } from '../../cmdutil/local-tools.js';
import type { McpServers } from '../../mcp/client.js';
import type { Attached } from '../../cmdutil/attachments.js';
import { addUsage, runToolLoop } from './loop.js';
import { buildChatRequest, userMessage, type ChatFlags } from './request.js';
import { usageLine } from './render.js';
import { helpList, visibleWidth, wrapHelpText } from '../../term/wrap.js';

export interface ReplSetup {
  flags: ChatFlags & { stream: boolean; usage?: boolean; save?: string | false; history?: boolean };
  tools: ChatTool[];
  commands: ToolCommand[];
  /** the tools of --mcp servers */
  mcp?: McpServers;
  /** --approve: each call asked at the REPL's prompt */
  approve?: boolean;
  maxTurns: number;
  conversation: Conversation;
  store: ConversationStore;
  firstPrompt?: string;
}

/** The REPL's own commands: the /help text and Tab completion both come from this list. */
const COMMANDS: { name: string; usage: string; about: string }[] = [
  {
    name: 'system',
    usage: '/system [TEXT]',
    about: 'show or set the system prompt (an empty TEXT clears it: /system -)',
  },
  { name: 'model', usage: '/model [ID]', about: 'show or switch the model (Tab completes the ids)' },
  { name: 'attach', usage: '/attach FILE|URL', about: 'attach a file or URL to the next message (as -a)' },
  { name: 'edit', usage: '/edit', about: 'write the next message in $VISUAL or $EDITOR' },
  { name: 'retry', usage: '/retry', about: 'answer the last message again' },
  { name: 'copy', usage: '/copy', about: 'copy the last answer to the clipboard' },
  { name: 'usage', usage: '/usage', about: 'tokens and cost of this session so far' },
  { name: 'mcp', usage: '/mcp', about: 'the MCP tools lent to the chat (--mcp)' },
  { name: 'save', usage: '/save [FILE]', about: 'save the conversation (and write a transcript to FILE)' },
  { name: 'clear', usage: '/clear', about: 'start over (a new conversation; the system prompt stays)' },
  { name: 'help', usage: '/help', about: 'this list' },
  { name: 'exit', usage: '/exit', about: 'leave (also /quit, Ctrl-D)' },
];

const INPUT_HELP =
  'input: a line ending in \\ continues on the next line; """ on its own line opens and closes a block.';

/** The /help text for `width` columns (term/wrap: descriptions wrapped at word boundaries beside the commands). */
const help = (width: number) => `commands (Tab completes them):
${helpList(
  COMMANDS.map((c) => [c.usage, c.about]),
  width,
  17,
)}
${wrapHelpText(`${INPUT_HELP}\nCtrl-R searches the input history; Ctrl-C cancels the answer in progress.`, width)}`;

/**
 * readline's completer: `/mo` → `/model `; `/` lists every command; `/model s` the model ids (of the catalogue,
 * given as `models`) that start so. Anything else is left alone.
 */
export function completeCommand(line: string, models: readonly string[] = []): [string[], string] {
  const model = /^\/model\s+(\S*)$/.exec(line);
  if (model) return [models.filter((id) => id.startsWith(model[1]!)), model[1]!];
  if (!/^\/\S*$/.test(line)) return [[], line];
  const hits = [...COMMANDS.map((c) => c.name), 'quit'].filter((n) => `/${n}`.startsWith(line)).map((n) => `/${n}`);
  return [hits.length === 1 ? [`${hits[0]} `] : hits, line];
}

/** Lines typed → entries: a line ending in \ continues, """ opens and closes a block. */
class InputAssembler {
  private buffer: string[] = [];
  private inBlock = false;

  /** the finished entry, or undefined while more lines are expected */
  push(raw: string): string | undefined {
    if (this.inBlock) {
      if (raw.trim() !== '"""') {
        this.buffer.push(raw);
        return undefined;
      }
      this.inBlock = false;
      return this.take();
    }
    if (raw.trim() === '"""' && !this.buffer.length) {
      this.inBlock = true;
      return undefined;
    }
    if (raw.endsWith('\\')) {
      this.buffer.push(raw.slice(0, -1));
      return undefined;
    }
    this.buffer.push(raw);
    return this.take();
  }

  get pending(): boolean {
    return this.inBlock || this.buffer.length > 0;
  }

  reset(): void {
    this.buffer = [];
    this.inBlock = false;
  }

  private take(): string {
    const entry = this.buffer.join('\n');
    this.buffer = [];
    return entry;
  }
}

type Readline = import('node:readline').Interface;

/** One REPL session: the conversation and model, turns, /commands, Ctrl-C. */
class Repl {
  private conv: Conversation;
  private model: string;
  private turnAbort: AbortController | undefined;
  private armedExit = false;
  private closed = false;
  /** /attach: what goes with the next message */
  private attached: Attached[] = [];
  /** /usage: the tokens and cost of this session's answers */
  private usage: ChatUsage | null | undefined;
  private answers = 0;
  /** /copy: the last answer's text */
  private lastAnswer = '';
  private catalogue: Promise<string[]> | undefined;
  readonly input = new InputAssembler();

  constructor(
    private readonly ctx: Context,
    private readonly s: ReplSetup,
    private readonly rl: Readline,
    private readonly http: HttpClient,
    readonly terminal: boolean,
  ) {
    this.conv = s.conversation;
    this.model = s.flags.model ?? s.conversation.model;
    rl.on('close', () => {
      this.closed = true;
    });
  }

  /** The language models' ids and aliases (GET /v1/language-models), fetched once. */
  modelIds(): Promise<string[]> {
    this.catalogue ??= import('../../endpoints/models.js')
      .then(({ listModels }) => listModels(this.http, 'language'))
      // ids are the server's text: one with a control character is never offered nor printed
      .then(({ models }) =>
        models
          .flatMap((m) => [m.id, ...(m.aliases ?? [])])
          .filter((id) => typeof id === 'string' && !/[\p{Cc}\p{Cf}]/u.test(id))
          .sort(),
      );
    // a failed fetch is asked again next time
    this.catalogue.catch(() => {
      this.catalogue = undefined;
    });
    return this.catalogue;
  }

  /**
   * A yes/no question through the line editor (its answer is not a REPL line); Ctrl-C during it cancels the turn,
   * which answers no.
   */
  ask(question: string, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve(false);
      signal.addEventListener('abort', () => resolve(false), { once: true });
      this.rl.question(question, { signal }, (answer) => resolve(/^\s*y(es)?\s*$/i.test(answer)));
    });
  }

  note(msg: string): void {
    this.ctx.streams.stderr.write(`${this.ctx.out.ce.dim(msg)}\n`);
  }

  /** the terminal's width (80 off a terminal) */
  private get columns(): number {
    return this.ctx.streams.stderr.columns || 80;
  }

  prompt(text?: string): void {
    if (text) this.rl.setPrompt(text);
    if (this.terminal && !this.closed) this.rl.prompt();
  }

  banner(): void {
    const earlier = this.conv.messages.filter((m) => m.role === 'user').length;
    const parts = [
      'svc chat',
      this.model,
      `conversation ${this.conv.id}${earlier ? ` (${earlier} earlier turns)` : ''}`,
      '/help, /exit or Ctrl-D to leave',
    ];
    // broken between its parts (then at words) to fit the terminal
    const lines = [''];
    for (const part of parts) {
      const last = lines.length - 1;
      if (lines[last] === '' || visibleWidth(`${lines[last]} · ${part}`) <= this.columns) {
        lines[last] = lines[last] === '' ? part : `${lines[last]} · ${part}`;
      } else {
        lines[last] += ' ·';
        lines.push(part);
      }
    }
    this.note(wrapHelpText(lines.join('\n'), this.columns));
  }

  /** Ctrl-C: cancel the answer in progress; else clear the line; at an empty prompt, twice to leave. */
  interrupt(): void {
    if (this.turnAbort) return this.turnAbort.abort();
    if (!this.terminal) return void this.rl.close();
    const line = (this.rl as unknown as { line: string }).line;
    if (!line && !this.input.pending) {
      if (this.armedExit) return void this.rl.close();
      this.armedExit = true;
      this.ctx.streams.stderr.write('\n');
      this.note('(Ctrl-C again, /exit or Ctrl-D to leave)');
    } else {
      this.rl.write(null, { ctrl: true, name: 'e' });
      this.rl.write(null, { ctrl: true, name: 'u' });
      this.ctx.streams.stderr.write('^C\n');
    }
    this.input.reset();
    this.prompt('> ');
  }

  /** A line read: feed it to the assembler; run the finished entry. false: leave. */
  async onLine(raw: string): Promise<boolean> {
    this.armedExit = false;
    const entry = this.input.push(raw);
    if (entry === undefined) {
      this.prompt('… ');
      return true;
    }
    this.rl.setPrompt('> ');
    const text = entry.trim();
    if (text.startsWith('/') && !text.includes('\n')) {
      if (!(await this.command(text))) return false;
    } else if (text) await this.send(entry);
    this.prompt();
    return true;
  }

  private save(): void {
    if (this.s.flags.save === false) return;
    this.conv.model = this.model;
    this.s.store.save(this.conv);
  }

  private setSystem(text: string | undefined): void {
    const messages = this.conv.messages;
    const has = messages[0]?.role === 'system';
    if (!text) {
      if (has) messages.shift();
    } else if (has) messages[0] = { role: 'system', content: text };
    else messages.unshift({ role: 'system', content: text });
  }

  /** A message typed (or written in the editor), with what /attach added; the uploads deleted once answered. */
  async send(text: string): Promise<void> {
    const attached = this.attached;
    this.attached = [];
    const blocks = [text, ...attached.flatMap((a) => a.text)].filter((b) => b.trim()).join('\n\n');
    try {
      await this.turn(
        userMessage(blocks, {
          image: attached.flatMap((a) => a.images),
          fileId: attached.flatMap((a) => a.fileIds),
        }),
      );
    } finally {
      for (const a of attached) await a.cleanup();
    }
  }

  /** One turn (tool calls included); a cancelled or failed turn leaves no trace in the conversation. */
  async turn(message: ChatMessage): Promise<boolean> {
    const messages = this.conv.messages;
    const before = messages.length;
    messages.push(message);
    const abort = (this.turnAbort = new AbortController());
    try {
      const { messages: _m, ...base } = buildChatRequest(
        { ...this.s.flags, model: this.model },
        messages,
        this.model,
        this.s.tools,
      ) as ChatRequest;
      const outcome = await runToolLoop(this.ctx, this.http, base, messages, {
        commands: this.s.commands,
        mcp: this.s.mcp,
        approve: this.s.approve
          ? (call) => this.ask(`run ${call.name} ${call.arguments}? [y/N] `, abort.signal)
          : undefined,
        maxTurns: this.s.maxTurns,
        stream: this.s.flags.stream !== false,
        usage: this.s.flags.usage,
        signal: abort.signal,
      });
      this.usage = addUsage(this.usage, outcome.usage);
      this.answers++;
      this.lastAnswer = outcome.text;
      this.save();
      return true;
    } catch (err) {
      messages.splice(before);
      this.ctx.out.endLine();
      if (abort.signal.aborted || err instanceof InterruptedError) this.note('[cancelled]');
      else this.ctx.out.error(describeError(err));
      return false;
    } finally {
      this.turnAbort = undefined;
    }
  }

  /** A /command; false: leave. */
  private async command(line: string): Promise<boolean> {
    const [cmd, ...rest] = line.slice(1).split(/\s+/);
    const arg = rest.join(' ').trim();
    if (cmd === 'exit' || cmd === 'quit') return false;
    const run = this.handlers[cmd ?? ''];
    if (run) await run(arg);
    else this.ctx.out.error(`unknown command /${cmd}: /help lists them`);
    return true;
  }

  private readonly handlers: Record<string, (arg: string) => void | Promise<void>> = {
    help: () => this.note(help(this.columns)),
    system: (arg) => {
      if (!arg) {
        const first = this.conv.messages[0];
        const sys = first?.role === 'system' ? messageText(first) : '';
        return this.note(sys ? `system: ${sys}` : 'no system prompt');
      }
      this.setSystem(arg === '-' ? undefined : arg);
      this.note(arg === '-' ? 'system prompt cleared' : 'system prompt set');
    },
    model: (arg) => this.switchModel(arg),
    save: (arg) => this.saveCommand(arg),
    clear: () => {
      const first = this.conv.messages[0];
      this.conv = this.s.store.newConversation(this.ctx.config().profile, this.model);
      if (first?.role === 'system') this.conv.messages.push(first);
      this.note(`cleared: new conversation ${this.conv.id}`);
    },
    attach: (arg) => this.attach(arg),
    edit: () => this.edit(),
    retry: () => this.retry(),
    copy: () => this.copy(),
    usage: () =>
      this.note(
        this.answers
          ? `${usageLine(this.usage).replace(/^usage: /, `usage of ${this.answers} answer(s): `)}`
          : 'usage: no answer yet',
      ),
    mcp: async () => {
      const tools = this.s.mcp?.tools ?? [];
      if (!tools.length) return this.note("no MCP tools lent to this chat (start it with --mcp 'COMMAND ARGS')");
      // names and descriptions are the MCP servers' text
      const { terminalSafe } = await import('../../term/terminal-safe.js');
      this.note(tools.map((t) => terminalSafe(`${t.name}  ${t.description.split('\n')[0]}`)).join('\n'));
    },
  };

  /** /model ID: switched only to a model of the catalogue (an id or an alias). */
  private async switchModel(arg: string): Promise<void> {
    if (!arg) return this.note(`model: ${this.model}`);
    let ids: string[];
    try {
      ids = await this.modelIds();
    } catch (err) {
      return this.ctx.out.error(`/model: could not read the model catalogue: ${describeError(err)}; model unchanged`);
    }
    if (!ids.includes(arg)) {
      const { terminalSafe } = await import('../../term/terminal-safe.js');
      return this.ctx.out.error(
        `/model: ${terminalSafe(arg)} is not a language model of the catalogue (one of ${ids.join(', ')}); ` +
          `model unchanged (${this.model})`,
      );
    }
    this.model = arg;
    this.note(`model: ${this.model}`);
  }

  /** /attach FILE|URL: read, fetched and checked as -a is, sent with the next message. */
  private async attach(arg: string): Promise<void> {
    if (!arg) {
      const n = this.attached.length;
      return this.note(n ? `${n} attachment(s) go with the next message` : 'usage: /attach FILE|URL');
    }
    if (arg === '-') return this.ctx.out.error('/attach -: stdin is the terminal here; attach a file or URL');
    try {
      const { attach } = await import('../../cmdutil/attachments.js');
      this.attached.push(
        await attach(this.ctx, [arg], {
          images: true,
          command: 'svc chat',
          files: () => import('../../endpoints/files.js'),
        }),
      );
      this.note(`attached ${arg}: it goes with the next message`);
    } catch (err) {
      this.ctx.out.error(`/attach: ${describeError(err).replace(/^-a /, '').replace(/^-a: /, '')}`);
    }
  }

  /** /edit: the next message written in the editor, sent when it is not empty. */
  private async edit(): Promise<void> {
    const [{ mkdtempSync, readFileSync, rmSync }, { tmpdir }, { join }, { runEditor }] = await Promise.all([
      import('node:fs'),
      import('node:os'),
      import('node:path'),
      import('../../cmdutil/editor.js'),
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'svc-edit-'));
    const file = join(dir, 'message.md');
    const stdin = this.ctx.streams.stdin as NodeJS.ReadStream;
    this.rl.pause();
    if (this.terminal) stdin.setRawMode?.(false);
    try {
      const code = await runEditor(this.ctx, file);
      let text = '';
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        // not written: nothing to send
      }
      if (code !== 0) return this.ctx.out.error(`/edit: the editor exited with ${code}; nothing sent`);
      if (!text.trim()) return this.note('/edit: the message is empty; nothing sent');
      this.note(text.trimEnd());
      await this.send(text.replace(/\n+$/, ''));
    } catch (err) {
      this.ctx.out.error(`/edit: ${describeError(err)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      if (this.terminal) stdin.setRawMode?.(true);
      this.rl.resume();
    }
  }

  /** /retry: the last message answered again; the old answer stays when the new one fails. */
  private async retry(): Promise<void> {
    const messages = this.conv.messages;
    const last = messages.map((m) => m.role).lastIndexOf('user');
    if (last < 0) return this.note('/retry: no message to answer again');
    const removed = messages.splice(last);
    if (!(await this.turn(removed[0]!))) messages.push(...removed);
  }

  private async copy(): Promise<void> {
    if (!this.lastAnswer) return this.note('/copy: no answer to copy yet');
    const { copyToClipboard } = await import('./clipboard.js');
    const r = await copyToClipboard(this.lastAnswer, this.ctx.env);
    if (r instanceof Error) this.ctx.out.error(`/copy: ${r.message}`);
    else this.note(`copied the last answer (${this.lastAnswer.length} characters) with ${r}`);
  }

  private async saveCommand(file: string): Promise<void> {
    this.conv.model = this.model;
    this.s.store.save(this.conv);
    if (!file) return this.note(`saved ${this.conv.id} (continue it with: svc chat --conversation ${this.conv.id})`);
    const { writeFileAtomic } = await import('../../core/atomic-file.js');
    try {
      await writeFileAtomic(file, transcript(this.conv));
      this.note(`saved ${this.conv.id}; transcript written to ${file}`);
    } catch (err) {
      this.note(`saved ${this.conv.id}; ${(err as Error).message}`);
    }
  }
}

/** The line editor: on a terminal with completion, the kept history (unless --no-history) and Ctrl-R. */
async function lineEditor(ctx: Context, s: ReplSetup, terminal: boolean, repl: () => Repl): Promise<Readline> {
  const { createInterface } = await import('node:readline');
  const keep = terminal && s.flags.history !== false;
  const store = keep ? await import('../../store/repl-history.js') : undefined;
  const file = store?.historyFile(ctx.env, ctx.config().profile);
  const rl = createInterface({
    input: ctx.streams.stdin,
    output: ctx.streams.stderr,
    terminal,
    historySize: store?.HISTORY_ENTRIES ?? 1000,
    history: file ? store!.loadHistory(file) : [],
    removeHistoryDuplicates: true,
    prompt: '> ',
    completer: terminal
      ? (line: string, done: (err: null, r: [string[], string]) => void) => {
          if (!/^\/model\s/.test(line)) return done(null, completeCommand(line));
          repl()
            .modelIds()
            .then(
              (ids) => done(null, completeCommand(line, ids)),
              () => done(null, [[], line]),
            );
        }
      : undefined,
  });
  if (terminal) (await import('./reverse-search.js')).addReverseSearch(rl);
  let warned = false;
  if (file)
    rl.on('history', (entries: string[]) => {
      try {
        store!.saveHistory(file, entries);
      } catch (err) {
        if (!warned) ctx.out.warn(`input history not kept: ${describeError(err)}`);
        warned = true;
      }
    });
  return rl;
}

export async function runRepl(ctx: Context, s: ReplSetup): Promise<number> {
  const terminal = !!ctx.streams.stdin.isTTY && !!ctx.streams.stderr.isTTY;
  let repl: Repl | undefined;
  const rl = await lineEditor(ctx, s, terminal, () => repl!);
  repl = new Repl(ctx, s, rl, await ctx.http(), terminal);
  const interrupt = () => repl!.interrupt();
  ctx.setInterruptHandler(interrupt);
  rl.on('SIGINT', interrupt);

  if (terminal) repl.banner();
  if (s.firstPrompt) await repl.send(s.firstPrompt);
  repl.prompt();
  for await (const raw of rl) if (!(await repl.onLine(raw))) break;
  rl.close();
  ctx.setInterruptHandler(undefined);
  if (terminal) ctx.streams.stderr.write('\n');
  return 0;
}

/** A readable transcript (markdown). */
export function transcript(conv: Conversation): string {
  const lines = [`# ${conv.id} (${conv.model})`, ''];
  for (const m of conv.messages as ChatMessage[]) {
    const text = messageText(m);
    if (m.role === 'tool') lines.push(`**tool** (${m.tool_call_id}): ${text}`, '');
    else if (m.tool_calls?.length)
      lines.push(
        `**${m.role}** calls ${m.tool_calls.map((c) => `${c.function.name}(${c.function.arguments})`).join(', ')}`,
        '',
      );
    else lines.push(`**${m.role}**: ${text}`, '');
  }
  return lines.join('\n');
}
