// What the emulator saw on each realtime session, kept in memory for tests and for `GET /_emulator/realtime`:
// when each input_audio_buffer.append arrived, and when each response's audio went out. A test can then
// check that a half-duplex client sent no microphone frame while the assistant was speaking.
import type { Backend } from '../state/backend.js';

export interface RealtimeResponseLog {
  response_id: string;
  /**
   * when the user turn this response answers ended: speech_stopped sent (server VAD) or the commit received (ms
   * since the epoch); absent for a response asked for otherwise (after a tool's output)
   */
  turn_ended_at?: number;
  /** when response.created was sent (ms since the epoch) */
  created_at: number;
  /** when the first audio delta was sent (absent when the response had no audio) */
  audio_start?: number;
  /** when the last audio delta was sent */
  audio_end?: number;
  /** when response.done was sent */
  done_at?: number;
  status: 'in_progress' | 'completed' | 'cancelled' | 'failed';
  transcript: string;
  /** a function call asked for, if any */
  function_call?: { call_id: string; name: string; arguments: string };
}

export interface RealtimeSessionLog {
  session_id: string;
  call_id?: string;
  model: string;
  reasoning_effort: string;
  opened_at: number;
  closed_at?: number;
  /** arrival time of every input_audio_buffer.append */
  appends: number[];
  /** input audio received, in ms of audio */
  input_audio_ms: number;
  /** client event types in arrival order (appends counted, not listed) */
  client_events: string[];
  /** fields of client events the API document does not describe (ignored; refused under --strict) */
  warnings?: string[];
  /** the last session configuration */
  session: Record<string, unknown>;
  transcripts: string[];
  responses: RealtimeResponseLog[];
  /** function_call_output items received */
  function_outputs: { call_id: string; output: string }[];
  /** conversation.item.truncate events applied: the answer's item and where its audio was cut */
  truncations: { item_id: string; audio_end_ms: number }[];
}

const logs = new WeakMap<Backend, RealtimeSessionLog[]>();

export function realtimeLogs(core: Backend): RealtimeSessionLog[] {
  let l = logs.get(core);
  if (!l) {
    l = [];
    logs.set(core, l);
  }
  return l;
}

export function clearRealtimeLogs(core: Backend): void {
  realtimeLogs(core).length = 0;
}
