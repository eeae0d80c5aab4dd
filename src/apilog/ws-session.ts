// What the call log keeps of one WebSocket session, read from the events that cross the socket (wire-details.md):
// realtime (`/v1/realtime`): the model, the conversation (typed or heard user turns, the assistant's transcripts,
// tool calls), the usage summed over every response.done; streaming TTS (`/v1/tts`): the text sent; streaming STT
// (`/v1/stt`): the model and the final transcript; any protocol: the first error event. Texts are capped while
// they are collected (a session may last hours), like the prompt and answer of an HTTP call.
import type { CallRecord, CallTurn } from './log.js';
import { TEXT_CAP } from './log.js';
import type { Query } from '../net/http.js';
import type { WsJsonEvent, WsWatcher } from '../net/ws.js';
import { isTranscriptDelta, isTranscriptDone, type RealtimeServerEventName } from '../core/realtime-events.js';

type Protocol = 'realtime' | 'tts' | 'stt' | 'other';

/**
 * The model a session uses when the query names none (voice-api.md; a realtime session also says it in
 * session.created).
 */
const DEFAULT_MODEL: Partial<Record<Protocol, string>> = { realtime: 'voice-latest', stt: 'voice-transcribe-2.0' };

const protocolOf = (path: string): Protocol =>
  path === '/v1/realtime' ? 'realtime' : path === '/v1/tts' ? 'tts' : path === '/v1/stt' ? 'stt' : 'other';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Record<string, any> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, any>) : undefined;

/** Text kept per role (user, assistant, tool): the first TEXT_CAP characters, then `truncated`. */
class CappedTurns {
  readonly turns: CallTurn[] = [];
  private readonly used = new Map<CallTurn['role'], number>();
  truncated = false;

  /** A new turn (or more text for the last one of that role, when `append`). */
  add(role: CallTurn['role'], text: string, append = false): void {
    const used = this.used.get(role) ?? 0;
    // a new turn costs its separator too: the turns of a role joined stay within the cap
    const room = TEXT_CAP - used - (append || !used ? 0 : 1);
    if (room <= 0 || !text) {
      if (text) this.truncated = true;
      return;
    }
    const kept = text.length > room ? text.slice(0, room) : text;
    if (kept.length < text.length) this.truncated = true;
    this.used.set(role, TEXT_CAP - room + kept.length);
    const last = this.turns[this.turns.length - 1];
    if (append && last?.role === role) last.text += kept;
    else this.turns.push({ role, text: kept });
  }

  text(role: CallTurn['role'], sep: string): string | undefined {
    const parts = this.turns.filter((t) => t.role === role).map((t) => t.text);
    return parts.length ? parts.join(sep) : undefined;
  }
}

export class WsSessionLog implements WsWatcher {
  private readonly protocol: Protocol;
  private model?: string;
  private usage?: Record<string, number>;
  private error?: string;
  private readonly texts = new CappedTurns();
  /** realtime: the assistant's transcript of the answer in progress (deltas), until its done event */
  private partial = '';
  private answering = false;
  private readonly toolTurns = new Map<string, CallTurn>();
  /** tts: utterances ended (text.done) and answered (audio.done) */
  private utterances = { ended: 0, done: 0 };
  private sttDone = false;
  private sttLine = new Map<number, string[]>();
  /** stt: lines say their channel only when each channel is transcribed on its own */
  private readonly multichannel: boolean;
  /**
   * realtime on a SIP call (calls join): the server's clean close is the call's end, even in the middle of an answer
   */
  private readonly call: boolean;
  private end?: { at: number; code?: number; error?: string; byClient: boolean };

  constructor(
    path: string,
    query: Query | undefined,
    private readonly startedAt: number,
  ) {
    this.protocol = protocolOf(path);
    this.multichannel = query?.multichannel === true || query?.multichannel === 'true';
    this.call = typeof query?.call_id === 'string' && query.call_id !== '';
    const model = query?.model;
    // a call_id session ignores the model asked for: its session.created says which one it is
    this.model =
      typeof model === 'string' && model && query?.call_id === undefined ? model : DEFAULT_MODEL[this.protocol];
  }

  sent(ev: Record<string, unknown>): void {
    if (this.protocol === 'realtime') {
      if (ev.type !== 'conversation.item.create') return;
      const item = obj(ev.item);
      if (item?.type === 'message' && item.role === 'user') {
        const text = (Array.isArray(item.content) ? item.content : [])
          .map((c: any) => str(c?.text) ?? str(c?.transcript) ?? '')
          .filter(Boolean)
          .join('\n');
        this.texts.add('user', text);
      } else if (item?.type === 'function_call_output') {
        const turn = this.toolTurns.get(String(item.call_id));
        if (turn && typeof item.output === 'string')
          turn.text += ` → ${item.output.length > 500 ? `${item.output.slice(0, 500)}…` : item.output}`;
      }
    } else if (this.protocol === 'tts') {
      if (ev.type === 'text.delta' && typeof ev.delta === 'string') this.texts.add('user', ev.delta, true);
      else if (ev.type === 'text.done') {
        this.utterances.ended++;
        this.texts.add('user', '\n', true);
      }
    }
  }

  received(ev: WsJsonEvent): void {
    const t = ev.type;
    if (t === 'error') {
      const e = obj(ev.error);
      const message = str(e?.message) ?? str(ev.message) ?? 'the session reported an error';
      const code = str(e?.code) ?? str(e?.type);
      this.error ??= code ? `${message} (${code})` : message;
      return;
    }
    if (this.protocol === 'realtime') this.realtime(ev);
    else if (this.protocol === 'tts') {
      if (t === 'audio.done') this.utterances.done++;
    } else if (this.protocol === 'stt') this.stt(ev);
  }

  private realtime(ev: WsJsonEvent): void {
    // typed by the document's names, so each name compared below is one the server sends
    const t = ev.type as RealtimeServerEventName | undefined;
    const session = obj(ev.session);
    if ((t === 'session.created' || t === 'session.updated') && typeof session?.model === 'string')
      this.model = session.model;
    else if (t === 'conversation.item.input_audio_transcription.completed' && typeof ev.transcript === 'string')
      this.texts.add('user', ev.transcript.trim());
    else if (t === 'response.created') {
      this.answering = true;
      this.partial = '';
    } else if (isTranscriptDelta(t)) {
      if (typeof ev.delta === 'string') this.partial += ev.delta.slice(0, TEXT_CAP + 1 - this.partial.length);
    } else if (isTranscriptDone(t)) {
      this.texts.add('assistant', (str(ev.transcript) ?? str(ev.text) ?? this.partial).trim());
      this.partial = '';
    } else if (t === 'response.function_call_arguments.done' && typeof ev.name === 'string') {
      const args = typeof ev.arguments === 'string' ? ev.arguments : JSON.stringify(ev.arguments ?? {});
      this.texts.add('tool', `${ev.name}(${args})`);
      const turn = this.texts.turns[this.texts.turns.length - 1];
      if (turn?.role === 'tool' && typeof ev.call_id === 'string') this.toolTurns.set(ev.call_id, turn);
    } else if (t === 'response.done') {
      this.answering = false;
      // an answer cut before its transcript's done event keeps what arrived
      if (this.partial.trim()) this.texts.add('assistant', this.partial.trim());
      this.partial = '';
      const response = obj(ev.response);
      this.addUsage(obj(response?.usage));
      if (response?.status === 'failed') {
        const why = str(obj(obj(response.status_details)?.error)?.message);
        this.error ??= `an answer failed${why ? `: ${why}` : ''}`;
      }
    }
  }

  private addUsage(u: Record<string, any> | undefined): void {
    if (!u) return;
    const sum = (this.usage ??= {});
    for (const [k, v] of Object.entries(u)) if (typeof v === 'number' && Number.isFinite(v)) sum[k] = (sum[k] ?? 0) + v;
  }

  private stt(ev: WsJsonEvent): void {
    const ch = typeof ev.channel_index === 'number' ? ev.channel_index : 0;
    const line = (text: string) => {
      const parts = this.sttLine.get(ch) ?? [];
      if (text) parts.push(text);
      this.sttLine.set(ch, parts);
    };
    const endLine = () => {
      const parts = this.sttLine.get(ch);
      this.sttLine.delete(ch);
      if (parts?.length) this.texts.add('assistant', this.sttText(ch, parts));
    };
    if (ev.type === 'transcript.partial' && ev.is_final === true) {
      line(str(ev.text)?.trim() ?? '');
      if (ev.speech_final === true) endLine();
    } else if (ev.type === 'transcript.done') {
      line(str(ev.text)?.trim() ?? '');
      endLine();
      this.sttDone = true;
    }
  }

  private sttText(ch: number, parts: string[]): string {
    return `${this.multichannel ? `[channel ${ch}] ` : ''}${parts.join(' ')}`;
  }

  ended(code: number | undefined, error: string | undefined, byClient: boolean): void {
    this.end = { at: Date.now(), code, error, byClient };
  }

  /** What the server owed and never sent, when it (not the client) ended the session. */
  private incomplete(): string | undefined {
    if (this.protocol === 'realtime' && this.answering && !(this.call && this.end?.code === 1000))
      return 'the session ended in the middle of an answer (no response.done)';
    if (this.protocol === 'tts' && this.utterances.ended > this.utterances.done)
      return 'the session ended before audio.done: the audio is incomplete';
    if (this.protocol === 'stt' && !this.sttDone)
      return 'the session ended before transcript.done: the transcript is incomplete';
    return undefined;
  }

  /** Fill the record: how the session ended (or that it had not when svc exited), its model, texts and raw usage. */
  fill(rec: CallRecord, now: number): Record<string, number> | undefined {
    const end = this.end;
    rec.duration_ms = (end?.at ?? now) - this.startedAt;
    if (end?.code !== undefined) rec.close_code = end.code;
    const cut = end
      ? end.byClient
        ? undefined
        : this.incomplete()
      : 'svc exited before the session ended (interrupted)';
    const error = [end?.error, this.error, cut].filter((e, i, all): e is string => !!e && all.indexOf(e) === i);
    if (error.length) rec.error = error.join('; ');
    if (this.model) rec.model = this.model;
    // what was still arriving is kept: the STT lines not yet ended, the answer in progress
    for (const [ch, parts] of this.sttLine) if (parts.length) this.texts.add('assistant', this.sttText(ch, parts));
    this.sttLine.clear();
    if (this.partial.trim()) this.texts.add('assistant', this.partial.trim());
    this.partial = '';
    const prompt = this.texts.text('user', this.protocol === 'tts' ? '' : '\n')?.replace(/\n+$/, '');
    const answer = this.texts.text('assistant', '\n');
    if (prompt) rec.prompt = prompt;
    if (answer) rec.answer = answer;
    if (this.protocol === 'realtime' && this.texts.turns.length) rec.turns = this.texts.turns;
    if (this.texts.truncated) rec.truncated = true;
    return this.usage;
  }
}
