// `svc chat -i`: a REPL. Multi-line input (a line ending in \ continues; """ opens and closes a block), the
// conversation kept across turns (and saved locally after each one), /system, /model, /save, /clear, /help,
// /exit. Ctrl-C cancels the answer in progress and keeps the REPL; at an empty prompt it asks for a second one.
// The prompt and notes go to stderr, answers to stdout; without a terminal each stdin line is a turn.
import type { ChatMessage, ChatRequest, ChatTool } from '../../api/chat.js';
import { ConversationStore, messageText, type Conversation } from '../../store/conversations.js';
import type { Context } from '../../core/context.js';
import { InterruptedError, describeError } from '../../core/errors.js';
import type { ToolCommand } from '../../core/local-tools.js';
import { runToolLoop } from './loop.js';
import { buildChatRequest, type ChatFlags } from './request.js';

export interface ReplSetup {
  flags: ChatFlags & { stream: boolean; usage?: boolean; save?: boolean };
  tools: ChatTool[];
  commands: ToolCommand[];
  maxTurns: number;
  conversation: Conversation;
  store: ConversationStore;
  firstPrompt?: string;
}

const HELP = `commands:
  /system [TEXT]   show or set the system prompt (an empty TEXT clears it: /system -)
  /model [ID]      show or switch the model
  /save [FILE]     save the conversation (and write a transcript to FILE)
  /clear           start over (a new conversation; the system prompt stays)
  /help            this list
  /exit            leave (also Ctrl-D)
input: a line ending in \\ continues on the next line; """ on its own line opens and closes a block.
Ctrl-C cancels the answer in progress.`;

export async function runRepl(ctx: Context, s: ReplSetup): Promise<number> {
  const { createInterface } = await import('node:readline');
  const stdin = ctx.streams.stdin;
  const terminal = !!stdin.isTTY && !!ctx.streams.stderr.isTTY;
  const rl = createInterface({ input: stdin, output: ctx.streams.stderr, terminal, historySize: 1000, prompt: '> ' });
  const http = await ctx.http();
  let conv = s.conversation;
  let model = s.flags.model ?? conv.model;
  let turnAbort: AbortController | undefined;
  let armedExit = false;
  let buffer: string[] = [];
  let inBlock = false;
  let closed = false;
  const note = (msg: string) => ctx.streams.stderr.write(`${ctx.out.ce.dim(msg)}\n`);
  const prompt = () => {
    if (terminal && !closed) rl.prompt();
  };

  const interrupt = () => {
    if (turnAbort) {
      turnAbort.abort();
      return;
    }
    if (!terminal) {
      rl.close();
      return;
    }
    const line = (rl as unknown as { line: string }).line;
    if (!line && !buffer.length && !inBlock) {
      if (armedExit) {
        rl.close();
        return;
      }
      armedExit = true;
      ctx.streams.stderr.write('\n');
      note('(Ctrl-C again, /exit or Ctrl-D to leave)');
    } else {
      rl.write(null, { ctrl: true, name: 'e' });
      rl.write(null, { ctrl: true, name: 'u' });
      ctx.streams.stderr.write('^C\n');
    }
    buffer = [];
    inBlock = false;
    rl.setPrompt('> ');
    prompt();
  };
  ctx.setInterruptHandler(interrupt);
  rl.on('SIGINT', interrupt);
  rl.on('close', () => {
    closed = true;
  });

  const save = () => {
    if (s.flags.save === false) return;
    conv.model = model;
    s.store.save(conv);
  };

  const setSystem = (text: string | undefined) => {
    const has = conv.messages[0]?.role === 'system';
    if (!text) {
      if (has) conv.messages.shift();
    } else if (has) conv.messages[0] = { role: 'system', content: text };
    else conv.messages.unshift({ role: 'system', content: text });
  };

  const turn = async (text: string) => {
    const before = conv.messages.length;
    conv.messages.push({ role: 'user', content: text });
    turnAbort = new AbortController();
    try {
      const body = buildChatRequest({ ...s.flags, model }, conv.messages, model, s.tools) as ChatRequest;
      const { messages: _m, ...base } = body;
      await runToolLoop(ctx, http, base, conv.messages, { commands: s.commands, maxTurns: s.maxTurns, stream: s.flags.stream !== false, usage: s.flags.usage, signal: turnAbort.signal });
      save();
    } catch (err) {
      // a cancelled or failed turn leaves no trace in the conversation
      conv.messages.splice(before);
      if (turnAbort.signal.aborted || err instanceof InterruptedError) {
        ctx.out.endLine();
        note('[cancelled]');
      } else {
        ctx.out.endLine();
        ctx.out.error(describeError(err));
      }
    } finally {
      turnAbort = undefined;
    }
  };

  const command = async (line: string): Promise<boolean> => {
    const [cmd, ...rest] = line.slice(1).split(/\s+/);
    const arg = rest.join(' ').trim();
    switch (cmd) {
      case 'exit':
      case 'quit':
        return false;
      case 'help':
        note(HELP);
        break;
      case 'system':
        if (!arg) {
          const sys = conv.messages[0]?.role === 'system' ? messageText(conv.messages[0]) : '';
          note(sys ? `system: ${sys}` : 'no system prompt');
        } else {
          setSystem(arg === '-' ? undefined : arg);
          note(arg === '-' ? 'system prompt cleared' : 'system prompt set');
        }
        break;
      case 'model':
        if (!arg) note(`model: ${model}`);
        else {
          model = arg;
          note(`model: ${model}`);
        }
        break;
      case 'save': {
        conv.model = model;
        s.store.save(conv);
        if (arg) {
          const { writeFileAtomic } = await import('../../core/atomic-file.js');
          try {
            await writeFileAtomic(arg, transcript(conv));
            note(`saved ${conv.id}; transcript written to ${arg}`);
          } catch (err) {
            note(`saved ${conv.id}; ${(err as Error).message}`);
          }
        } else note(`saved ${conv.id} (continue it with: svc chat --conversation ${conv.id})`);
        break;
      }
      case 'clear': {
        const sys = conv.messages[0]?.role === 'system' ? conv.messages[0] : undefined;
        conv = s.store.newConversation(ctx.config().profile, model);
        if (sys) conv.messages.push(sys);
        note(`cleared: new conversation ${conv.id}`);
        break;
      }
      default:
        ctx.out.error(`unknown command /${cmd}: /help lists them`);
    }
    return true;
  };

  if (terminal) {
    note(`svc chat · ${model} · conversation ${conv.id}${conv.messages.length ? ` (${conv.messages.filter((m) => m.role === 'user').length} earlier turns)` : ''} · /help, /exit or Ctrl-D to leave`);
  }
  if (s.firstPrompt) await turn(s.firstPrompt);
  prompt();

  for await (const raw of rl) {
    armedExit = false;
    let entry: string | undefined;
    if (inBlock) {
      if (raw.trim() === '"""') {
        inBlock = false;
        entry = buffer.join('\n');
        buffer = [];
      } else buffer.push(raw);
    } else if (raw.trim() === '"""' && !buffer.length) {
      inBlock = true;
    } else if (raw.endsWith('\\')) {
      buffer.push(raw.slice(0, -1));
    } else {
      buffer.push(raw);
      entry = buffer.join('\n');
      buffer = [];
    }
    if (entry === undefined) {
      rl.setPrompt('… ');
      prompt();
      continue;
    }
    rl.setPrompt('> ');
    const text = entry.trim();
    if (text.startsWith('/') && !text.includes('\n')) {
      if (!(await command(text))) break;
    } else if (text) {
      await turn(entry);
    }
    prompt();
  }
  closed = true;
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
    else if (m.tool_calls?.length) lines.push(`**${m.role}** calls ${m.tool_calls.map((c) => `${c.function.name}(${c.function.arguments})`).join(', ')}`, '');
    else lines.push(`**${m.role}**: ${text}`, '');
  }
  return lines.join('\n');
}
