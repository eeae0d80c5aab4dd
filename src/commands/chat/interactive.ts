// `svc chat -i`: a REPL. Multi-line input (a line ending in \ continues; """ opens and closes a block), the
// conversation kept across turns (and saved locally after each one), /system, /model, /save, /clear, /help,
// /exit (Tab completes them). Ctrl-C cancels the answer in progress and keeps the REPL; at an empty prompt it asks for
// a second one.
// The prompt and notes go to stderr, answers to stdout; without a terminal each stdin line is a turn.
import type { ChatMessage, ChatRequest, ChatTool } from '../../endpoints/chat.js';
import { type ConversationStore, messageText, type Conversation } from '../../store/conversations.js';
import type { Context } from '../../runtime/context.js';
import { InterruptedError, describeError } from '../../core/errors.js';
import type { HttpClient } from '../../net/http.js';
import type { ToolCommand } from '../../cmdutil/local-tools.js';
import type { McpServers } from '../../mcp/client.js';
import { runToolLoop } from './loop.js';
import { buildChatRequest, type ChatFlags } from './request.js';
import { helpList, visibleWidth, wrapHelpText } from '../../term/wrap.js';

export interface ReplSetup {
  flags: ChatFlags & { stream: boolean; usage?: boolean; save?: string | false };
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
  { name: 'model', usage: '/model [ID]', about: 'show or switch the model' },
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
${wrapHelpText(INPUT_HELP, width)}
Ctrl-C cancels the answer in progress.`;

/** readline's completer: `/mo` → `/model `; `/` lists every command. Anything else is left alone. */
export function completeCommand(line: string): [string[], string] {
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
    } else if (text) await this.turn(entry);
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

  /** One turn (tool calls included); a cancelled or failed turn leaves no trace in the conversation. */
  async turn(text: string): Promise<void> {
    const messages = this.conv.messages;
    const before = messages.length;
    messages.push({ role: 'user', content: text });
    const abort = (this.turnAbort = new AbortController());
    try {
      const { messages: _m, ...base } = buildChatRequest(
        { ...this.s.flags, model: this.model },
        messages,
        this.model,
        this.s.tools,
      ) as ChatRequest;
      await runToolLoop(this.ctx, this.http, base, messages, {
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
      this.save();
    } catch (err) {
      messages.splice(before);
      this.ctx.out.endLine();
      if (abort.signal.aborted || err instanceof InterruptedError) this.note('[cancelled]');
      else this.ctx.out.error(describeError(err));
    } finally {
      this.turnAbort = undefined;
    }
  }

  /** A /command; false: leave. */
  private async command(line: string): Promise<boolean> {
    const [cmd, ...rest] = line.slice(1).split(/\s+/);
    const arg = rest.join(' ').trim();
    switch (cmd) {
      case 'exit':
      case 'quit':
        return false;
      case 'help':
        this.note(help(this.columns));
        break;
      case 'system':
        if (!arg) {
          const first = this.conv.messages[0];
          const sys = first?.role === 'system' ? messageText(first) : '';
          this.note(sys ? `system: ${sys}` : 'no system prompt');
        } else {
          this.setSystem(arg === '-' ? undefined : arg);
          this.note(arg === '-' ? 'system prompt cleared' : 'system prompt set');
        }
        break;
      case 'model':
        if (arg) this.model = arg;
        this.note(`model: ${this.model}`);
        break;
      case 'save':
        await this.saveCommand(arg);
        break;
      case 'clear': {
        const first = this.conv.messages[0];
        this.conv = this.s.store.newConversation(this.ctx.config().profile, this.model);
        if (first?.role === 'system') this.conv.messages.push(first);
        this.note(`cleared: new conversation ${this.conv.id}`);
        break;
      }
      default:
        this.ctx.out.error(`unknown command /${cmd}: /help lists them`);
    }
    return true;
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

export async function runRepl(ctx: Context, s: ReplSetup): Promise<number> {
  const { createInterface } = await import('node:readline');
  const stdin = ctx.streams.stdin;
  const terminal = !!stdin.isTTY && !!ctx.streams.stderr.isTTY;
  const rl = createInterface({
    input: stdin,
    output: ctx.streams.stderr,
    terminal,
    historySize: 1000,
    prompt: '> ',
    completer: terminal ? completeCommand : undefined,
  });
  const repl = new Repl(ctx, s, rl, await ctx.http(), terminal);
  const interrupt = () => repl.interrupt();
  ctx.setInterruptHandler(interrupt);
  rl.on('SIGINT', interrupt);

  if (terminal) repl.banner();
  if (s.firstPrompt) await repl.turn(s.firstPrompt);
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
