// The realtime session's event names, typed by the API document's lists (svc-formats/api-facts WEBSOCKET_EVENTS;
// a type-only import, so nothing is loaded) and grouped once: the server sends the answer's audio and text under
// the GA names and, from older models, the beta ones, and every reader must take both.
import type { WEBSOCKET_EVENTS } from 'svc-formats/api-facts';

type Realtime = (typeof WEBSOCKET_EVENTS)['realtimeSession'];
/** an event name the realtime server sends */
export type RealtimeServerEventName = Realtime['server'][number];

const AUDIO_DELTA = ['response.output_audio.delta', 'response.audio.delta'] as const;
const TRANSCRIPT_DELTA = [
  'response.output_audio_transcript.delta',
  'response.audio_transcript.delta',
  'response.output_text.delta',
  'response.text.delta',
] as const;
const TRANSCRIPT_DONE = [
  'response.output_audio_transcript.done',
  'response.audio_transcript.done',
  'response.output_text.done',
  'response.text.done',
] as const;
// each name is one of the document's (a renamed event fails the typecheck here)
AUDIO_DELTA satisfies readonly RealtimeServerEventName[];
TRANSCRIPT_DELTA satisfies readonly RealtimeServerEventName[];
TRANSCRIPT_DONE satisfies readonly RealtimeServerEventName[];

const among = (names: readonly string[]) => (type: string | undefined) => type !== undefined && names.includes(type);
/** a piece of the answer's audio */
export const isAudioDelta = among(AUDIO_DELTA);
/** a piece of the answer's transcript or text */
export const isTranscriptDelta = among(TRANSCRIPT_DELTA);
/** the answer's whole transcript or text */
export const isTranscriptDone = among(TRANSCRIPT_DONE);
