// Chat conversations kept locally (the chat completions endpoint is stateless): one JSON file per conversation
// in <data dir>/conversations, plus the last one of each profile (`svc chat -c`). No terminal code here.
// The last one is a symbolic link last/<profile> whose target is the conversation's id, replaced by renaming a new
// link over it: atomic, with no file to read and write again. Older versions kept them in last.json, which saving
// read, rewrote and renamed over (~0.5 ms of every `svc chat`); it is still read, when newer than the link (an
// older svc ran since), and still written where links cannot be made.
import { lstatSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage } from '../endpoints/chat.js';
import { dataDir } from '../core/paths.js';
import { writeJsonFile } from '../core/json-file.js';
import { makeDirs } from 'svc-formats/make-dirs';

export interface Conversation {
  id: string;
  profile: string;
  model: string;
  created_at: number;
  updated_at: number;
  /** the convention of `messages`: chat completions (absent) or the messages convention (`svc messages`) */
  convention?: 'chat' | 'messages';
  messages: ChatMessage[];
}

export interface ConversationSummary {
  id: string;
  profile: string;
  model: string;
  created_at: number;
  updated_at: number;
  turns: number;
  title: string;
  /** the command that continues it: chat or messages */
  command: 'chat' | 'messages';
}

const ID = /^conv_[a-z0-9]{6,40}$/;

export class ConversationStore {
  readonly dir: string;

  constructor(env: NodeJS.ProcessEnv) {
    this.dir = join(dataDir(env), 'conversations');
  }

  static isId(id: string): boolean {
    return ID.test(id);
  }

  newConversation(
    profile: string,
    model: string,
    nowSec = Math.floor(Date.now() / 1000),
    convention: 'chat' | 'messages' = 'chat',
  ): Conversation {
    // a local name, not a secret: Math.random spares loading node:crypto (~2 ms of every `svc chat`)
    const suffix = Math.floor(Math.random() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
    const id = `conv_${nowSec.toString(36)}${suffix}`;
    return {
      id,
      profile,
      model,
      created_at: nowSec,
      updated_at: nowSec,
      ...(convention === 'messages' ? { convention } : {}),
      messages: [],
    };
  }

  private file(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  private write(path: string, data: unknown): void {
    writeJsonFile(path, data, { pretty: true });
  }

  /** undefined when there is no such conversation (or the id is malformed) */
  load(id: string): Conversation | undefined {
    if (!ConversationStore.isId(id)) return undefined;
    try {
      return JSON.parse(readFileSync(this.file(id), 'utf8')) as Conversation;
    } catch {
      return undefined;
    }
  }

  save(conv: Conversation, nowSec = Math.floor(Date.now() / 1000)): void {
    conv.updated_at = nowSec;
    this.write(this.file(conv.id), conv);
    this.setLast(lastKey(conv.profile, conv.convention), conv.id);
  }

  delete(id: string): boolean {
    if (!this.load(id)) return false;
    rmSync(this.file(id), { force: true });
    let links: string[] = [];
    try {
      links = readdirSync(join(this.dir, 'last'));
    } catch {
      // none yet
    }
    for (const name of links)
      if (this.readLink(decodeURIComponent(name))?.id === id) rmSync(join(this.dir, 'last', name), { force: true });
    const last = this.readLast();
    let changed = false;
    for (const [p, v] of Object.entries(last)) {
      if (v === id) {
        delete last[p];
        changed = true;
      }
    }
    if (changed) this.write(join(this.dir, 'last.json'), last);
    return true;
  }

  list(): ConversationSummary[] {
    let names: string[] = [];
    try {
      names = readdirSync(this.dir).filter((n) => n.startsWith('conv_') && n.endsWith('.json'));
    } catch {
      return [];
    }
    const out: ConversationSummary[] = [];
    for (const n of names) {
      const c = this.load(n.slice(0, -5));
      if (c) out.push(summarize(c));
    }
    return out.sort((a, b) => b.updated_at - a.updated_at || b.id.localeCompare(a.id));
  }

  private link(key: string): string {
    return join(this.dir, 'last', encodeURIComponent(key));
  }

  /** the id a last/ link names, and when it was made; undefined without one */
  private readLink(key: string): { id: string; at: number } | undefined {
    try {
      const link = this.link(key);
      const id = readlinkSync(link);
      return ConversationStore.isId(id) ? { id, at: lstatSync(link).mtimeMs } : undefined;
    } catch {
      return undefined;
    }
  }

  private readLast(): Record<string, string> {
    try {
      return JSON.parse(readFileSync(join(this.dir, 'last.json'), 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  }

  /** the profile's last conversation of a convention (chat and messages are continued separately) */
  lastId(profile: string, convention: 'chat' | 'messages' = 'chat'): string | undefined {
    const key = lastKey(profile, convention);
    const linked = this.readLink(key);
    const legacy = this.readLast()[key];
    if (!linked || !legacy) return linked?.id ?? legacy;
    const legacyAt = statSync(join(this.dir, 'last.json'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    return legacyAt > linked.at ? legacy : linked.id;
  }

  /** the profile's most recently updated last conversation, of chat or of messages */
  latestId(profile: string): string | undefined {
    const ids = [this.lastId(profile), this.lastId(profile, 'messages')].filter((id): id is string => !!id);
    return (
      ids
        .map((id) => this.load(id))
        .filter((c): c is Conversation => !!c)
        .sort((a, b) => b.updated_at - a.updated_at)[0]?.id ?? ids[0]
    );
  }

  setLast(key: string, id: string): void {
    const link = this.link(key);
    const tmp = `${link}.${process.pid}.tmp`;
    try {
      makeDirs(join(this.dir, 'last'), 0o700);
      symlinkSync(id, tmp);
      renameSync(tmp, link);
      return;
    } catch {
      try {
        rmSync(tmp, { force: true });
      } catch {
        // no last/ folder to leave it in
      }
    }
    // no symbolic links here: last.json, as older versions kept it
    const last = this.readLast();
    if (last[key] === id) return;
    last[key] = id;
    this.write(join(this.dir, 'last.json'), last);
  }
}

function lastKey(profile: string, convention: 'chat' | 'messages' = 'chat'): string {
  return convention === 'messages' ? `messages:${profile}` : profile;
}

export function messageText(m: ChatMessage): string {
  if (typeof m.content === 'string') return m.content;
  if (!Array.isArray(m.content)) return '';
  return (m.content as { type: string; [k: string]: any }[])
    .map((p) =>
      p.type === 'text'
        ? p.text
        : p.type === 'image_url' || p.type === 'image'
          ? '[image]'
          : p.type === 'file'
            ? `[file ${p.file?.file_id}]`
            : p.type === 'tool_use'
              ? `[tool use ${p.name}]`
              : p.type === 'tool_result'
                ? '[tool result]'
                : `[${p.type}]`,
    )
    .join(' ');
}

export function summarize(c: Conversation): ConversationSummary {
  const firstUser = c.messages.find((m) => m.role === 'user');
  const title = firstUser ? messageText(firstUser).replace(/\s+/g, ' ').trim().slice(0, 60) : '';
  return {
    id: c.id,
    profile: c.profile,
    model: c.model,
    created_at: c.created_at,
    updated_at: c.updated_at,
    turns: c.messages.filter((m) => m.role === 'user').length,
    title,
    command: c.convention === 'messages' ? 'messages' : 'chat',
  };
}
