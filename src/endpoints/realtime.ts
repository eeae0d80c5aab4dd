// Realtime voice (`/v1/realtime` WebSocket): connection query, event shapes of wire-details.md "Realtime
// voice", the session configuration (also from a stored agent) and the error events. No terminal code here.
import type { Schema } from './api-shapes.js';
import { ApiError } from '../core/errors.js';
import type { WsConnection } from '../net/ws.js';
import type { Agent } from './agents.js';
import { OPERATIONS, SCHEMAS } from 'svc-formats/api-facts';
import type { RealtimeServerEventName } from '../core/realtime-events.js';

export const REALTIME_MODELS = OPERATIONS.realtimeSession.fields['query.model'].enum;
export const DEPRECATED_MODELS: readonly string[] = ['voice-2.0'];
/** a realtime session's reasoning.effort (a query parameter of the connection) */
export const REALTIME_REASONING_EFFORTS = OPERATIONS.realtimeSession.fields['query.reasoning.effort'].enum;
const CLIENT_EVENT = SCHEMAS.RealtimeClientEvent;
/** A session's limits as the document states them (session.update's fields). */
export const SESSION_LIMITS = {
  instructions: CLIENT_EVENT['$.session.instructions'].maxLength,
  tools: CLIENT_EVENT['$.session.tools'].maxItems,
  vadThreshold: CLIENT_EVENT['$.session.turn_detection.threshold'],
  vadSilenceMs: CLIENT_EVENT['$.session.turn_detection.silence_duration_ms'],
};
type WireType = (typeof SCHEMAS.RealtimeAudioFormat)['$.type']['enum'][number];
/** `--audio-format`'s names: the document's wire types (RealtimeAudioFormat) without `audio/` */
export type AudioFormatName = WireType extends `audio/${infer Name}` ? Name : never;
export const AUDIO_FORMATS = SCHEMAS.RealtimeAudioFormat['$.type'].enum.map(
  (t) => t.slice('audio/'.length) as AudioFormatName,
);

/** a server event as received (its other fields unchecked) */
export type ServerEvent = Record<string, any> & { type: RealtimeServerEventName };

export type WireFormat = Schema<'RealtimeAudioFormat'>;

/** The wire format of a `--audio-format` name, and how its bytes are coded locally. */
export function wireFormat(name: AudioFormatName): {
  format: WireFormat;
  encoding: 'pcm' | 'mulaw' | 'alaw';
  sampleRate: number;
} {
  if (name === 'pcmu') return { format: { type: 'audio/pcmu' }, encoding: 'mulaw', sampleRate: 8000 };
  if (name === 'pcma') return { format: { type: 'audio/pcma' }, encoding: 'alaw', sampleRate: 8000 };
  return { format: { type: 'audio/pcm', rate: 24000 }, encoding: 'pcm', sampleRate: 24000 };
}

/** A session tool in the flat form; the nested chat form `{type, function: {...}}` is accepted too. */
export function flatTool(t: Record<string, any>): Record<string, any> {
  if (t?.type === 'function' && t.function && typeof t.function === 'object') {
    const f = t.function;
    return {
      type: 'function',
      name: f.name,
      ...(f.description !== undefined ? { description: f.description } : {}),
      parameters: f.parameters ?? { type: 'object', properties: {} },
    };
  }
  return t;
}

export type SessionUpdate = NonNullable<Schema<'RealtimeClientEvent'>['session']>;

/** The session fields an agent configures: instructions, voice, tools, VAD. */
export function sessionFromAgent(agent: Agent): SessionUpdate {
  const s: SessionUpdate = {};
  if (agent.instructions) s.instructions = agent.instructions;
  const v = agent.voice ?? undefined;
  if (v?.voice_id) s.voice = v.voice_id;
  if (v && (v.vad_threshold !== undefined || v.vad_silence_duration_ms !== undefined)) {
    s.turn_detection = { type: 'server_vad' };
    if (typeof v.vad_threshold === 'number') s.turn_detection.threshold = v.vad_threshold;
    if (typeof v.vad_silence_duration_ms === 'number') s.turn_detection.silence_duration_ms = v.vad_silence_duration_ms;
  }
  const tools = Array.isArray(agent.tools) ? agent.tools.map((t) => flatTool(t as Record<string, any>)) : [];
  // the knowledge base: the agent's collections searched through a file_search tool, unless it has one already
  const collections = Array.isArray(agent.collection_ids) ? agent.collection_ids : [];
  if (collections.length && !tools.some((t) => t?.type === 'file_search'))
    tools.push({ type: 'file_search', collection_ids: collections });
  if (tools.length) s.tools = tools;
  return s;
}

/** svc's own: how connectRealtime opens the session */
export interface ConnectOptions {
  model?: string;
  reasoningEffort?: string;
  /** a SIP call from the `realtime.call.incoming` webhook (API key only; model is ignored) */
  callId?: string;
}

/** Open `/v1/realtime` with `connect` (the command's authenticated WebSocket opener, like TtsSocket.open's). */
export async function connectRealtime(
  connect: (path: string, query: Record<string, string | undefined>) => Promise<WsConnection>,
  opts: ConnectOptions,
): Promise<WsConnection> {
  const query: Record<string, string | undefined> = opts.callId
    ? { call_id: opts.callId, 'reasoning.effort': opts.reasoningEffort }
    : { model: opts.model, 'reasoning.effort': opts.reasoningEffort };
  return connect('/v1/realtime', query);
}

const CODE_STATUS: Record<string, number> = {
  not_found: 404,
  'not-found': 404,
  permission_denied: 403,
  'permission-denied': 403,
  unauthenticated: 401,
  invalid_api_key: 401,
  rate_limit_exceeded: 429,
  'resource-exhausted': 429,
  internal: 500,
  server_error: 500,
};

/** An `error` event as an ApiError (status from its code or type, 400 when neither says). */
export function errorFromEvent(ev: ServerEvent): ApiError {
  const e = (ev.error && typeof ev.error === 'object' ? ev.error : ev) as Record<string, unknown>;
  const code = typeof e.code === 'string' ? e.code : undefined;
  const type = typeof e.type === 'string' ? e.type : undefined;
  const message =
    typeof e.message === 'string'
      ? e.message
      : typeof ev.message === 'string'
        ? ev.message
        : 'the realtime session reported an error';
  const status =
    (code ? CODE_STATUS[code] : undefined) ??
    (type ? CODE_STATUS[type] : undefined) ??
    (type === 'server_error' ? 500 : type === 'authentication_error' ? 401 : 400);
  return new ApiError(status, message, code ?? type);
}
