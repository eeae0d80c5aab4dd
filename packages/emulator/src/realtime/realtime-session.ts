// One emulated realtime voice session (`/v1/realtime` WebSocket): the event protocol of wire-details.md
// "Realtime voice". The user's audio goes through an energy VAD (server_vad) or is committed by the client;
// each turn is "heard" with the tone decoder and answered with tone-encoded speech streamed as
// `response.output_audio.delta` chunks, paced at real time (setting `realtimePace`, 0 = no pacing).
import type { WebSocket } from 'ws';
import type { InvalidFieldError } from '../core/errors.js';
import type { Backend } from '../state/backend.js';
import { rng, valueForSchema } from '../text/generate.js';
import {
  decodeWire,
  encodeWire,
  formatRate,
  hear,
  normalizeWireFormat,
  speak,
  type WireFormat,
} from './realtime-audio.js';
import type { RealtimeResponseLog, RealtimeSessionLog } from './realtime-log.js';
import { EnergyVad, MAX_TURN_SECONDS } from './realtime-vad.js';

import { OPERATIONS, SCHEMAS } from 'svc-formats/api-facts';

type Json = Record<string, any>;

const { fields: QUERY } = OPERATIONS.realtimeSession;
export const REALTIME_MODELS = QUERY['query.model'].enum;
export const REALTIME_REASONING_EFFORTS = QUERY['query.reasoning.effort'].enum;
const CLIENT_EVENT = SCHEMAS.RealtimeClientEvent;
/** a conversation item's role (conversation.item.create's `item.role`) and the one it has when none is given */
const ITEM_ROLE = CLIENT_EVENT['$.item.role'];
type ItemRole = (typeof ITEM_ROLE.enum)[number];
/** server_vad's numbers: their ranges and the values a session starts with (the document's) */
const VAD = {
  threshold: CLIENT_EVENT['$.session.turn_detection.threshold'],
  silence_duration_ms: CLIENT_EVENT['$.session.turn_detection.silence_duration_ms'],
  prefix_padding_ms: CLIENT_EVENT['$.session.turn_detection.prefix_padding_ms'],
};
const defaultTurnDetection = (): TurnDetection => ({
  type: 'server_vad',
  threshold: VAD.threshold.default,
  silence_duration_ms: VAD.silence_duration_ms.default,
  prefix_padding_ms: VAD.prefix_padding_ms.default,
});
const CLOSINGS = [
  'This is the emulator speaking.',
  'The emulator heard you.',
  'Noted by the emulator.',
  'Thanks for calling the emulator.',
];
/** a session's built-in tool kinds: the document's (ToolKind), function aside */
const OTHER_TOOL_KINDS: readonly string[] = SCHEMAS.ToolKind.$.enum.filter((kind) => kind !== 'function');

/** a word said stands for a word of a tool's name: the same, or an inflection of it (book → books, booking) */
const sameWord = (said: string, word: string) =>
  said === word || (word.length >= 3 && said.startsWith(word) && /^(s|es|ed|d|ing)$/.test(said.slice(word.length)));

/**
 * Whether words (lower case, space-separated and padded) name the tool: its name as written (`book_table`,
 * `booktable`), or its words in order with at most two words between each (`book a table`, `booking the big table`,
 * `get me
 * the weather`).
 */
export function namesTool(said: string, name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (words.length === 0) return false;
  if (said.replace(/ /g, '').includes(words.join(''))) return true;
  const heard = said.trim().split(' ');
  for (let start = 0; start < heard.length; start++) {
    if (!sameWord(heard[start]!, words[0]!)) continue;
    let at = start;
    let matched = 1;
    while (matched < words.length) {
      const next = heard.slice(at + 1, at + 4).findIndex((w) => sameWord(w, words[matched]!));
      if (next === -1) break;
      at += next + 1;
      matched++;
    }
    if (matched === words.length) return true;
  }
  return false;
}

export interface SessionTool {
  type: 'function';
  name: string;
  description?: string;
  parameters?: Json;
}

export interface TurnDetection {
  type: 'server_vad';
  threshold: number;
  silence_duration_ms: number;
  prefix_padding_ms: number;
}

export interface SessionConfig {
  id: string;
  object: 'realtime.session';
  model: string;
  instructions: string;
  voice: string;
  turn_detection: TurnDetection | null;
  audio: { input: { format: WireFormat }; output: { format: WireFormat; voice: string } };
  tools: (SessionTool | { type: string })[];
  reasoning: { effort: string };
}

type ConversationItem =
  | {
      id: string;
      type: 'message';
      role: ItemRole;
      text: string;
      /** an answer's audio sent so far, in ms (cut by conversation.item.truncate) */
      audioMs?: number;
      /** truncated: what was heard is fixed, audio still sent after it is not */
      truncated?: boolean;
    }
  | { id: string; type: 'function_call'; call_id: string; name: string; arguments: string }
  | { id: string; type: 'function_call_output'; call_id: string; output: string };
type MessageItem = Extract<ConversationItem, { type: 'message' }>;

export interface SessionSetup {
  model: string;
  reasoningEffort: string;
  callId?: string;
  /** session fields carried by a client secret */
  initial?: Json;
  log: RealtimeSessionLog;
  /** the voice's canonical id when `id` is a built-in voice or a custom voice of the caller's team */
  findVoice: (id: string) => string | undefined;
  /**
   * the document's check of a client event (request-check.ts): throws with the message of a refusal, returns the
   * fields it does not describe
   */
  checkEvent?: (ev: Json) => string[];
  /** `--strict`: an event with a field the document does not describe is answered with an error, not applied */
  strict?: boolean;
}

class ClientEventError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

/**
 * A session.update's `turn_detection` (its type and ranges the document's, checked before): null (or type null) is
 * no VAD; server_vad's numbers merge into `current`.
 */
function updatedTurnDetection(td: Json | null, current: TurnDetection | null): TurnDetection | null {
  if (td === null || td.type === null) return null;
  const cur = current ?? defaultTurnDetection();
  return {
    type: 'server_vad',
    threshold: td.threshold ?? cur.threshold,
    silence_duration_ms: td.silence_duration_ms ?? cur.silence_duration_ms,
    prefix_padding_ms: td.prefix_padding_ms ?? cur.prefix_padding_ms,
  };
}

/**
 * A session.update's `tools` (an array of at most the document's count, checked before): function tools in the flat
 * or the nested chat form (kept flat), and built-in kinds.
 */
function updatedTools(tools: Json[]): (SessionTool | { type: string })[] {
  return tools.map((t: Json, i: number): SessionTool | { type: string } => {
    // flat form, and the nested chat form: accept both
    if (OTHER_TOOL_KINDS.includes(t?.type)) return t as { type: string };
    const fn = t?.type === 'function' && t.function && typeof t.function === 'object' ? t.function : t;
    if (t?.type !== 'function' || typeof fn?.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(fn.name)) {
      throw new ClientEventError(
        'invalid_value',
        `Invalid value for \`session.tools[${i}]\`: expected {type: "function", name, description, parameters}`,
        `session.tools[${i}]`,
      );
    }
    return {
      type: 'function',
      name: fn.name,
      description: fn.description,
      parameters: fn.parameters ?? { type: 'object', properties: {} },
    } as SessionTool;
  });
}

export class EmulatedRealtimeSession {
  readonly config: SessionConfig;
  private readonly items: ConversationItem[] = [];
  private vad: EnergyVad;
  /** audio appended without server VAD, waiting for a commit */
  private buffer: Int16Array[] = [];
  private bufferSamples = 0;
  private speechItemId?: string;
  private active?: { id: string; cancelled?: string };
  /** when the last user turn ended (speech_stopped sent, or the commit received), for the next response's log */
  private turnEndedAt?: number;
  private closed = false;
  private seq = 0;

  constructor(
    private readonly ws: WebSocket,
    private readonly core: Backend,
    private readonly setup: SessionSetup,
  ) {
    this.config = {
      id: core.id('sess'),
      object: 'realtime.session',
      model: setup.model,
      instructions: '',
      voice: CLIENT_EVENT['$.session.voice'].default,
      turn_detection: defaultTurnDetection(),
      audio: {
        input: { format: { type: 'audio/pcm', rate: 24000 } },
        output: { format: { type: 'audio/pcm', rate: 24000 }, voice: CLIENT_EVENT['$.session.voice'].default },
      },
      tools: [],
      reasoning: { effort: setup.reasoningEffort },
    };
    if (setup.initial) {
      try {
        // as a session.update would be: the document's rules, then the session's
        setup.checkEvent?.({ type: 'session.update', session: setup.initial });
        this.applyUpdate(setup.initial);
      } catch {
        // a client secret's session was checked when it was made; ignore what no longer applies
      }
    }
    this.vad = this.makeVad();
    setup.log.session_id = this.config.id;
    setup.log.session = this.publicSession();
  }

  private makeVad(): EnergyVad {
    const td = this.config.turn_detection;
    return new EnergyVad(formatRate(this.config.audio.input.format), {
      threshold: td?.threshold ?? 0.5,
      silenceMs: td?.silence_duration_ms ?? 500,
      prefixMs: td?.prefix_padding_ms ?? 300,
    });
  }

  /** tone speed of the emulated voice (0.7-1.5); fast by default to keep spoken answers short */
  private get voiceSpeed(): number {
    return Math.min(1.5, Math.max(0.7, this.core.settings.realtimeVoiceSpeed ?? 1.5));
  }

  get isClosed(): boolean {
    return this.closed || this.ws.readyState !== 1;
  }

  /** The session object as the API shows it. */
  publicSession(): Json {
    const c = this.config;
    return {
      id: c.id,
      object: c.object,
      model: c.model,
      instructions: c.instructions,
      voice: c.voice,
      turn_detection: c.turn_detection,
      audio: c.audio,
      tools: c.tools,
      reasoning: c.reasoning,
    };
  }

  send(event: Json): void {
    if (this.isClosed) return;
    this.ws.send(
      JSON.stringify({
        event_id: `event_${(++this.seq).toString().padStart(6, '0')}${this.config.id.slice(-6)}`,
        ...event,
      }),
    );
  }

  /** Unpaced audio waits while the socket holds over 1 MiB unsent: a client that reads slowly pushes back. */
  private async drained(): Promise<void> {
    while (!this.isClosed && this.ws.bufferedAmount > 1024 * 1024) await this.core.sleep(5);
  }

  start(): void {
    this.send({ type: 'session.created', session: this.publicSession() });
    this.send({
      type: 'conversation.created',
      conversation: { id: this.core.id('conv'), object: 'realtime.conversation' },
    });
  }

  close(code = 1000, reason = ''): void {
    if (this.closed) return;
    this.closed = true;
    if (this.active) this.active.cancelled = 'session_closed';
    try {
      this.ws.close(code, reason);
    } catch {
      this.ws.terminate();
    }
  }

  markClosed(): void {
    this.closed = true;
    if (this.active) this.active.cancelled = 'session_closed';
  }

  /** A text frame from the client. */
  handleText(text: string): void {
    let ev: Json;
    try {
      ev = JSON.parse(text);
    } catch {
      this.error('invalid_json', 'The event is not valid JSON');
      return;
    }
    if (!ev || typeof ev !== 'object' || typeof ev.type !== 'string') {
      this.error('invalid_event', 'Every client event needs a string `type`');
      return;
    }
    const log = this.setup.log;
    if (ev.type === 'input_audio_buffer.append') log.appends.push(Date.now());
    else log.client_events.push(ev.type);
    if (!this.documentAllows(ev)) return;
    try {
      this.dispatch(ev);
    } catch (err) {
      if (err instanceof ClientEventError) this.error(err.code, err.message, err.param, ev.event_id);
      else throw err;
    }
  }

  /** The document's rules for this event: false (an error sent) when they refuse it; unknown fields noted. */
  private documentAllows(ev: Json): boolean {
    let unknown: string[];
    try {
      unknown = this.setup.checkEvent?.(ev) ?? [];
    } catch (err) {
      this.error('invalid_value', (err as Error).message, (err as InvalidFieldError).field, ev.event_id);
      return false;
    }
    if (!unknown.length) return true;
    const names = unknown.map((n) => n.replace(/[^\x20-\x7e]/g, '?').slice(0, 200));
    if (this.setup.strict) {
      this.error(
        'unknown_parameter',
        `Unknown parameter \`${names[0]}\` in ${ev.type}: the API document does not describe it (the emulator runs ` +
          'with --strict)',
        names[0],
        ev.event_id,
      );
      return false;
    }
    (this.setup.log.warnings ??= []).push(
      `${ev.type}: unknown field${names.length > 1 ? 's' : ''} ignored: ${names.join(', ')}`,
    );
    return true;
  }

  private error(code: string, message: string, param?: string, eventId?: string): void {
    this.send({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        code,
        message,
        ...(param ? { param } : {}),
        ...(eventId ? { event_id: eventId } : {}),
      },
    });
  }

  private dispatch(ev: Json): void {
    switch (ev.type) {
      case 'session.update':
        this.applyUpdate(ev.session);
        this.vad = this.makeVad();
        this.setup.log.session = this.publicSession();
        this.send({ type: 'session.updated', session: this.publicSession() });
        return;
      case 'input_audio_buffer.append':
        return this.append(ev.audio);
      case 'input_audio_buffer.commit':
        return this.commit();
      case 'input_audio_buffer.clear':
        this.buffer = [];
        this.bufferSamples = 0;
        this.vad.reset();
        this.speechItemId = undefined;
        this.send({ type: 'input_audio_buffer.cleared' });
        return;
      case 'conversation.item.create':
        return this.createItem(ev.item, ev.previous_item_id);
      case 'conversation.item.delete':
        return this.deleteItem(ev.item_id);
      case 'conversation.item.truncate':
        return this.truncateItem(ev.item_id, ev.content_index, ev.audio_end_ms);
      case 'response.create':
        if (this.active)
          throw new ClientEventError(
            'conversation_already_has_active_response',
            `Conversation already has an active response in progress: ${this.active.id}`,
          );
        this.startResponse(ev.response ?? {});
        return;
      case 'response.cancel':
        if (!this.active)
          throw new ClientEventError('response_cancel_not_active', 'Cancellation failed: no active response found');
        this.active.cancelled = 'client_cancelled';
        return;
      default:
        throw new ClientEventError('invalid_event_type', `Unknown client event type: ${ev.type}`, 'type');
    }
  }

  /**
   * Merge a session.update whose shape the document's check passed (types, ranges, lengths); the rest of every field
   * is checked here before anything changes.
   */
  applyUpdate(s: Json): void {
    const next: SessionConfig = JSON.parse(JSON.stringify(this.config));
    if (s.instructions !== undefined) next.instructions = s.instructions;
    const voice = s.voice ?? s.audio?.output?.voice;
    if (voice !== undefined) {
      const found = typeof voice === 'string' ? this.setup.findVoice(voice) : undefined;
      if (found === undefined) {
        throw new ClientEventError(
          'invalid_value',
          `Invalid value for \`session.voice\`: ${JSON.stringify(voice)}; not a built-in voice ` +
            `(${SCHEMAS.BuiltinVoiceId.$.enum.join(', ')}) or a custom voice of the team`,
          'session.voice',
        );
      }
      next.voice = found;
      next.audio.output.voice = next.voice;
    }
    if (s.turn_detection !== undefined)
      next.turn_detection = updatedTurnDetection(s.turn_detection, next.turn_detection);
    for (const dir of Object.keys(next.audio) as (keyof SessionConfig['audio'])[]) {
      const f = s.audio?.[dir]?.format ?? (dir === 'input' ? s.input_audio_format : s.output_audio_format);
      if (f === undefined) continue;
      const wf = normalizeWireFormat(f);
      if (!wf)
        throw new ClientEventError(
          'invalid_value',
          `Invalid value for \`session.audio.${dir}.format\`: ${JSON.stringify(f)}; must be {type: ` +
            `"audio/pcm", rate: 24000}, {type: "audio/pcmu"} or {type: "audio/pcma"}`,
          `session.audio.${dir}.format`,
        );
      next.audio[dir].format = wf;
    }
    if (s.tools !== undefined) next.tools = updatedTools(s.tools);
    if (s.model !== undefined && !(REALTIME_MODELS as readonly string[]).includes(s.model)) {
      throw new ClientEventError(
        'invalid_value',
        `Invalid value for \`session.model\`: ${JSON.stringify(s.model)}; must be one of ${REALTIME_MODELS.join(', ')}`,
        'session.model',
      );
    }
    Object.assign(this.config, next);
  }

  private append(audio: string): void {
    const pcm = decodeWire(Buffer.from(audio, 'base64'), this.config.audio.input.format);
    this.setup.log.input_audio_ms += (pcm.length * 1000) / formatRate(this.config.audio.input.format);
    if (!this.config.turn_detection) {
      const rate = formatRate(this.config.audio.input.format);
      if (this.bufferSamples + pcm.length > rate * MAX_TURN_SECONDS)
        throw new ClientEventError(
          'input_audio_buffer_too_large',
          `The input audio buffer holds at most ${MAX_TURN_SECONDS} s of audio (the emulator's bound): commit or ` +
            `clear it; this append was dropped`,
          'audio',
        );
      this.buffer.push(pcm);
      this.bufferSamples += pcm.length;
      return;
    }
    for (const e of this.vad.push(pcm)) {
      if (e.type === 'start') {
        this.speechItemId = this.core.id('item');
        this.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: e.atMs, item_id: this.speechItemId });
        // server VAD interrupts the answer in progress (barge-in)
        if (this.active) this.active.cancelled = 'turn_detected';
      } else {
        const itemId = this.speechItemId ?? this.core.id('item');
        this.speechItemId = undefined;
        this.turnEndedAt = Date.now();
        this.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: e.atMs, item_id: itemId });
        this.userTurn(itemId, e.audio, true);
      }
    }
  }

  private commit(): void {
    if (this.config.turn_detection && this.vad.speaking) {
      throw new ClientEventError(
        'invalid_request',
        'With server VAD the turn is committed by the server; set turn_detection to null to commit by hand',
      );
    }
    const ms = (this.bufferSamples * 1000) / formatRate(this.config.audio.input.format);
    if (ms < 100)
      throw new ClientEventError(
        'input_audio_buffer_commit_empty',
        `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer ` +
          `only has ${ms.toFixed(2)}ms of audio.`,
      );
    const pcm = new Int16Array(this.bufferSamples);
    let o = 0;
    for (const p of this.buffer) {
      pcm.set(p, o);
      o += p.length;
    }
    this.buffer = [];
    this.bufferSamples = 0;
    this.turnEndedAt = Date.now();
    this.userTurn(this.core.id('item'), pcm, false);
  }

  /** A finished user turn: committed, transcribed, and (with server VAD) answered. */
  private userTurn(itemId: string, pcm: Int16Array, autoRespond: boolean): void {
    const previous = this.items.at(-1)?.id ?? null;
    this.send({ type: 'input_audio_buffer.committed', item_id: itemId, previous_item_id: previous });
    const transcript = hear(pcm, formatRate(this.config.audio.input.format));
    this.addUserText(itemId, transcript, previous, true);
    this.setup.log.transcripts.push(transcript);
    this.send({
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: itemId,
      content_index: 0,
      transcript,
    });
    if (autoRespond && !this.active) this.startResponse({});
  }

  /** What the caller of a SIP call says (the emulator plays the caller). */
  simulateCaller(text: string): void {
    const itemId = this.core.id('item');
    const rate = formatRate(this.config.audio.input.format);
    const pcm = speak(text, rate, this.voiceSpeed);
    this.setup.log.input_audio_ms += (pcm.length * 1000) / rate;
    const at = this.vad.nowMs;
    this.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: at, item_id: itemId });
    this.send({
      type: 'input_audio_buffer.speech_stopped',
      audio_end_ms: at + Math.round((pcm.length * 1000) / rate),
      item_id: itemId,
    });
    this.userTurn(itemId, pcm, true);
  }

  private addUserText(itemId: string, text: string, previous: string | null, audio: boolean): void {
    this.items.push({ id: itemId, type: 'message', role: 'user', text });
    this.send({
      type: 'conversation.item.added',
      previous_item_id: previous,
      item: {
        id: itemId,
        object: 'realtime.item',
        type: 'message',
        status: 'completed',
        role: 'user',
        content: [audio ? { type: 'input_audio', transcript: null } : { type: 'input_text', text }],
      },
    });
  }

  private createItem(item: Json, previousItemId?: string): void {
    const previous = previousItemId ?? this.items.at(-1)?.id ?? null;
    const id = typeof item.id === 'string' ? item.id : this.core.id('item');
    // the item's type, and a function call output's call_id, are the document's (checked before)
    if (item.type === 'function_call_output') {
      if (!this.items.some((i) => i.type === 'function_call' && i.call_id === item.call_id)) {
        throw new ClientEventError(
          'invalid_value',
          `No function call with call_id ${item.call_id} in this conversation`,
          'item.call_id',
        );
      }
      const output = typeof item.output === 'string' ? item.output : JSON.stringify(item.output ?? '');
      this.items.push({ id, type: 'function_call_output', call_id: item.call_id, output });
      this.setup.log.function_outputs.push({ call_id: item.call_id, output });
      this.send({
        type: 'conversation.item.added',
        previous_item_id: previous,
        item: { id, object: 'realtime.item', type: 'function_call_output', call_id: item.call_id, output },
      });
      return;
    }
    const role: ItemRole = item.role ?? ITEM_ROLE.default;
    const content = Array.isArray(item.content) ? item.content : [];
    const text = content
      .map((c: Json) => (typeof c?.text === 'string' ? c.text : typeof c?.transcript === 'string' ? c.transcript : ''))
      .join(' ')
      .trim();
    if (role === 'user') return this.addUserText(id, text, previous, false);
    this.items.push({ id, type: 'message', role, text });
    this.send({
      type: 'conversation.item.added',
      previous_item_id: previous,
      item: { id, object: 'realtime.item', type: 'message', status: 'completed', role, content },
    });
  }

  private itemById(id: unknown): ConversationItem {
    const item = this.items.find((i) => i.id === id);
    if (!item)
      throw new ClientEventError(
        'invalid_value',
        `No item with id ${JSON.stringify(id)} in this conversation`,
        'item_id',
      );
    return item;
  }

  private deleteItem(id: unknown): void {
    this.items.splice(this.items.indexOf(this.itemById(id)), 1);
    this.send({ type: 'conversation.item.deleted', item_id: id });
  }

  /** What the user heard of an answer: its audio cut at audioEndMs, its transcript dropped (the protocol's rule). */
  private truncateItem(id: unknown, contentIndex: number, audioEndMs: number): void {
    const item = this.itemById(id);
    if (item.type !== 'message' || item.role !== 'assistant' || item.audioMs === undefined)
      throw new ClientEventError('invalid_value', `Item ${id} is not an assistant message with audio`, 'item_id');
    if (contentIndex !== 0)
      throw new ClientEventError(
        'invalid_value',
        `Invalid value for \`content_index\`: ${contentIndex}; item ${id} has one content part (0)`,
        'content_index',
      );
    if (audioEndMs > item.audioMs)
      throw new ClientEventError(
        'invalid_value',
        `Invalid value for \`audio_end_ms\`: ${audioEndMs}; item ${id} has ${item.audioMs} ms of audio`,
        'audio_end_ms',
      );
    item.audioMs = audioEndMs;
    item.text = '';
    item.truncated = true;
    this.setup.log.truncations.push({ item_id: item.id, audio_end_ms: audioEndMs });
    this.send({ type: 'conversation.item.truncated', item_id: item.id, content_index: 0, audio_end_ms: audioEndMs });
  }

  private lastUserText(): string {
    const user = [...this.items].reverse().find((i) => i.type === 'message' && i.role === 'user') as
      | Extract<ConversationItem, { type: 'message' }>
      | undefined;
    return user?.text ?? '';
  }

  /** Which tool the last user turn asks for, if any. */
  private wantedTool(): SessionTool | undefined {
    const last = this.items.at(-1);
    if (last?.type !== 'message' || last.role !== 'user' || this.config.tools.length === 0) return undefined;
    const said = ` ${last.text.toLowerCase().replace(/[^a-z0-9]+/g, ' ')} `;
    const fns = this.config.tools.filter((t): t is SessionTool => t.type === 'function');
    if (fns.length === 0) return undefined;
    for (const t of fns) if (namesTool(said, t.name)) return t;
    if (/\b(use|call|run)\b/.test(said) && /\btools?\b/.test(said)) return fns[0];
    return undefined;
  }

  /** The text of the next answer: from the tool output when one just came back, else from the user's words. */
  private answerFor(instructions: string): string {
    const last = this.items.at(-1);
    if (last?.type === 'function_call_output') {
      const call = this.items.find((i) => i.type === 'function_call' && i.call_id === last.call_id) as
        | Extract<ConversationItem, { type: 'function_call' }>
        | undefined;
      const out = last.output.replace(/\s+/g, ' ').trim().slice(0, 160);
      return `The ${call?.name ?? 'tool'} tool says: ${out}`;
    }
    const user = [...this.items].reverse().find((i) => i.type === 'message' && i.role === 'user') as
      | Extract<ConversationItem, { type: 'message' }>
      | undefined;
    const said = (user?.text ?? '').replace(/\s+/g, ' ').trim();
    if (!said) return 'Hello, this is the emulator. How can I help?';
    // short, so that the spoken answer stays short; deterministic for the words heard and the session setup
    const r = rng(`${this.core.seed ?? ''}|${instructions}|${this.config.voice}|${said}`);
    const closing = CLOSINGS[Math.floor(r() * CLOSINGS.length)]!;
    return `You said: ${said.length > 80 ? `${said.slice(0, 80)}...` : said}. ${closing}`;
  }

  private startResponse(opts: Json): void {
    this.respond(opts).catch((err: Error) => {
      this.active = undefined;
      this.send({
        type: 'error',
        error: { type: 'server_error', code: 'internal', message: `emulator failure: ${err.message}` },
      });
    });
  }

  private async respond(opts: Json): Promise<void> {
    const id = this.core.id('resp');
    const me = { id } as { id: string; cancelled?: string };
    this.active = me;
    const log: RealtimeResponseLog = { response_id: id, created_at: Date.now(), status: 'in_progress', transcript: '' };
    if (this.turnEndedAt !== undefined) log.turn_ended_at = this.turnEndedAt;
    this.turnEndedAt = undefined;
    this.setup.log.responses.push(log);
    // --latency delays every reply, a realtime answer's first event as much as an HTTP status line
    const delayMs = (this.core.settings.realtimeResponseDelayMs ?? 150) + this.core.settings.latencyMs;
    this.send({
      type: 'response.created',
      response: { id, object: 'realtime.response', status: 'in_progress', output: [] },
    });
    const output: Json[] = [];
    let status: RealtimeResponseLog['status'] = 'completed';
    let reason: string | undefined;
    let outputTokens = 0;
    try {
      await this.core.sleep(delayMs);
      if (me.cancelled) throw new Cancelled();
      const tool = this.wantedTool();
      if (tool) {
        const r = this.callTool(id, tool, log);
        output.push(r.item);
        outputTokens = r.tokens;
      } else {
        const r = await this.speakAnswer(id, me, log, opts);
        output.push(r.item);
        outputTokens = r.tokens;
      }
    } catch (err) {
      if (!(err instanceof Cancelled)) throw err;
      status = 'cancelled';
      reason = me.cancelled ?? 'session_closed';
    } finally {
      if (this.active === me) this.active = undefined;
    }
    log.status = status;
    log.done_at = Date.now();
    const inputTokens = this.items.reduce(
      (n, i) => n + Math.ceil(('text' in i ? i.text : 'output' in i ? i.output : i.arguments).length / 4),
      0,
    );
    this.send({
      type: 'response.done',
      response: {
        id,
        object: 'realtime.response',
        status,
        ...(reason ? { status_details: { type: 'cancelled', reason } } : {}),
        output,
        usage: { total_tokens: inputTokens + outputTokens, input_tokens: inputTokens, output_tokens: outputTokens },
      },
    });
    this.onResponseDone?.(status);
  }

  /** The answer is a call of the tool the turn wants: the function_call item, sent whole. */
  private callTool(id: string, tool: SessionTool, log: RealtimeResponseLog): { item: Json; tokens: number } {
    const itemId = this.core.id('item');
    const callId = `call_${this.core.random(10, 'call').toString('hex')}`;
    const args = JSON.stringify(
      argumentsFromWords(
        tool.parameters ?? {},
        this.lastUserText(),
        // seeded by what was said, not by the response's id: the same words get the same call (a run repeats)
        valueForSchema(tool.parameters as never, `${this.core.seed ?? ''}|${tool.name}|${this.lastUserText()}`),
      ),
    );
    const item = {
      id: itemId,
      object: 'realtime.item',
      type: 'function_call',
      status: 'completed',
      name: tool.name,
      call_id: callId,
      arguments: args,
    };
    this.send({
      type: 'response.output_item.added',
      response_id: id,
      output_index: 0,
      item: { ...item, status: 'in_progress', arguments: '' },
    });
    this.send({
      type: 'response.function_call_arguments.delta',
      response_id: id,
      item_id: itemId,
      output_index: 0,
      call_id: callId,
      delta: args,
    });
    this.send({
      type: 'response.function_call_arguments.done',
      response_id: id,
      item_id: itemId,
      output_index: 0,
      call_id: callId,
      name: tool.name,
      arguments: args,
    });
    this.send({ type: 'response.output_item.done', response_id: id, output_index: 0, item });
    this.items.push({ id: itemId, type: 'function_call', call_id: callId, name: tool.name, arguments: args });
    log.function_call = { call_id: callId, name: tool.name, arguments: args };
    return { item, tokens: Math.ceil(args.length / 4) };
  }

  /** The answer's item, in the conversation from its start with the audio sent so far: a barge-in can truncate it,
   *  a cancel keeps what was said. */
  private addAnswerItem(id: string): MessageItem {
    const item: MessageItem = { id, type: 'message', role: 'assistant', text: '', audioMs: 0 };
    this.items.push(item);
    return item;
  }

  /** The answer is speech: a message item whose audio (tones of the text) and transcript stream in paced chunks. */
  private async speakAnswer(
    id: string,
    me: { id: string; cancelled?: string },
    log: RealtimeResponseLog,
    opts: Json,
  ): Promise<{ item: Json; tokens: number }> {
    const outputFormat = normalizeWireFormat(opts.audio?.output?.format) ?? this.config.audio.output.format;
    const legacy = (this.core.settings.realtimeLegacyEvents ?? 0) > 0;
    const pace = this.core.settings.realtimePace ?? 1;
    const chunkMs = Math.max(10, this.core.settings.realtimeChunkMs ?? 100);
    // realtimeAnswerRepeat: the answer said that many times over (long answers for memory tests), spoken once
    const repeat = Math.max(1, Math.floor(this.core.settings.realtimeAnswerRepeat ?? 1));
    const said = this.answerFor(String(opts.instructions ?? this.config.instructions));
    const text = repeat > 1 ? Array(repeat).fill(said).join(' ') : said;
    log.transcript = text;
    const itemId = this.core.id('item');
    const base = { response_id: id, item_id: itemId, output_index: 0, content_index: 0 };
    const item = {
      id: itemId,
      object: 'realtime.item',
      type: 'message',
      role: 'assistant',
      status: 'in_progress',
      content: [] as Json[],
    };
    this.send({ type: 'response.output_item.added', response_id: id, output_index: 0, item });
    const entry = this.addAnswerItem(itemId);
    // part types follow the event names: output_audio with response.output_audio.* (audio with the legacy names)
    const partType = legacy ? 'audio' : 'output_audio';
    this.send({ type: 'response.content_part.added', ...base, part: { type: partType, transcript: '' } });
    const rate = formatRate(outputFormat);
    const pcm = speak(repeat > 1 ? `${said} ` : said, rate, this.voiceSpeed);
    const per = Math.max(1, Math.round((rate * chunkMs) / 1000));
    const chunksOnce = Math.max(1, Math.ceil(pcm.length / per));
    const chunks = chunksOnce * repeat;
    const words = text.split(/(?<= )/);
    let sentWords = 0;
    let spoken = '';
    let sentSamples = 0;
    const started = Date.now();
    for (let i = 0; i < chunks; i++) {
      if (me.cancelled || this.isClosed) throw new Cancelled();
      const at = i % chunksOnce;
      const slice = pcm.subarray(at * per, Math.min(pcm.length, (at + 1) * per));
      // the transcript runs along with the audio
      const wordsDue = Math.ceil(((i + 1) / chunks) * words.length);
      if (wordsDue > sentWords) {
        const delta = words.slice(sentWords, wordsDue).join('');
        sentWords = wordsDue;
        spoken += delta;
        if (!entry.truncated) entry.text = spoken;
        this.send({ type: 'response.output_audio_transcript.delta', ...base, delta });
      }
      if (log.audio_start === undefined) log.audio_start = Date.now();
      this.send({
        type: legacy ? 'response.audio.delta' : 'response.output_audio.delta',
        ...base,
        delta: encodeWire(slice, outputFormat).toString('base64'),
      });
      log.audio_end = Date.now();
      sentSamples += slice.length;
      if (!entry.truncated) entry.audioMs = Math.round((sentSamples * 1000) / rate);
      if (pace > 0) {
        // pace against the clock so that slow sends do not add up
        const due = started + (i + 1) * chunkMs * pace;
        await this.core.sleep(due - Date.now());
      } else await this.drained();
    }
    this.send({ type: legacy ? 'response.audio.done' : 'response.output_audio.done', ...base });
    this.send({
      type: legacy ? 'response.audio_transcript.done' : 'response.output_audio_transcript.done',
      ...base,
      transcript: text,
    });
    const part = { type: partType, transcript: text };
    this.send({ type: 'response.content_part.done', ...base, part });
    const done = { ...item, status: 'completed', content: [part] };
    this.send({ type: 'response.output_item.done', response_id: id, output_index: 0, item: done });
    if (!entry.truncated) entry.text = text;
    return { item: done, tokens: Math.ceil(text.length / 4) + Math.ceil((pcm.length * repeat) / rate / 0.05) };
  }

  /** called after each response.done (the simulated SIP caller waits on it) */
  onResponseDone?: (status: string) => void;

  /** true when an answer is being produced */
  get responding(): boolean {
    return !!this.active;
  }

  /** true when the last item asks the client for a function result */
  get awaitingFunctionOutput(): boolean {
    const last = this.items.at(-1);
    return last?.type === 'function_call';
  }
}

class Cancelled extends Error {}

/**
 * A tool call's arguments: generated from the schema, except the top-level properties the user named with a value
 * ("… with city Paris", "party_size: 4", "date is \"2026-12-01\""), which take the words said — so a test can
 * predict the arguments of the call it provokes.
 */
function argumentsFromWords(schema: Json, said: string, generated: unknown): Json {
  const out: Json =
    generated && typeof generated === 'object' && !Array.isArray(generated) ? { ...(generated as Json) } : {};
  const props: Record<string, Json> =
    schema && typeof schema === 'object' && schema.properties && typeof schema.properties === 'object'
      ? schema.properties
      : {};
  for (const [name, sub] of Object.entries(props)) {
    const spoken = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[_-]+/g, '[ _-]');
    const m = new RegExp(
      `\\b${spoken}\\s*(?:=|:|is|of)?\\s*(?:"([^"]*)"|'([^']*)'|([^\\s,;!?]+(?:\\.\\d+)?))`,
      'i',
    ).exec(said);
    if (!m) continue;
    const word = (m[1] ?? m[2] ?? m[3] ?? '').replace(/\.$/, '');
    const type = Array.isArray(sub?.type) ? sub.type.find((t: string) => t !== 'null') : sub?.type;
    if (Array.isArray(sub?.enum) && !sub.enum.includes(word)) continue;
    if (type === 'integer' || type === 'number') {
      const n = Number(word);
      if (Number.isFinite(n) && (type === 'number' || Number.isInteger(n))) out[name] = n;
    } else if (type === 'boolean') {
      if (/^(true|yes)$/i.test(word)) out[name] = true;
      else if (/^(false|no)$/i.test(word)) out[name] = false;
    } else if (type === 'string' || type === undefined) out[name] = word;
  }
  return out;
}
