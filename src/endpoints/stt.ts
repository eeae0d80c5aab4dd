// Speech to text: POST /v1/stt (multipart, streamed from disk) and the /v1/stt WebSocket. No terminal code.
import type { Schema } from './api-shapes.js';
import { basename } from 'node:path';
import type { HttpClient } from '../net/http.js';
import type { WsConnection } from '../net/ws.js';
import { ApiError, ProtocolError } from '../core/errors.js';
import { buildMultipart, type MultipartPart } from '../net/multipart.js';
import { OPERATIONS, SCHEMAS } from 'svc-formats/api-facts';

const { speechToText: FILE, streamSpeechToText: STREAM } = OPERATIONS;
/** the largest file a transcription takes (the document's maxLength of its `file` part), and as it is said */
export const STT_MAX_FILE: number = FILE.fields['body.file'].maxLength;
export const STT_MAX_FILE_SAID = `${STT_MAX_FILE / 2 ** 20} MB (${STT_MAX_FILE} bytes)`;
export const STT_AUDIO_FORMATS = FILE.fields['body.audio_format'].enum;
export const STT_RAW_FORMATS = SCHEMAS.SttRawFormat.$.enum;
/** Streaming STT models */
export const STT_MODELS = STREAM.fields['query.model'].enum;
/** the socket's --encoding values */
export const STT_ENCODINGS = STREAM.fields['query.encoding'].enum;
/** the languages of --format (inverse text normalization), by their primary subtag */
export const STT_FORMAT_LANGUAGES = SCHEMAS.SttFormatLanguage.$.enum;
export const STT_MAX_KEYTERMS = STREAM.fields['query.keyterm'].maxItems;
export const STT_MAX_KEYTERM_CHARS = STREAM.fields['query.keyterm[]'].maxLength;

export type SttWord = Schema<'Word'>;

export type SttResponse = Schema<'Transcript'>;

/** svc's own typed fields; transcribe writes them as the document's form strings */
export interface SttForm {
  language?: string;
  format?: boolean;
  multichannel?: boolean;
  channels?: number;
  diarize?: boolean;
  audio_format?: string;
  sample_rate?: number;
}

/** A local file (streamed from disk), bytes in memory (stdin), or a URL the service fetches. */
export type TranscribeInput = { path: string; size: number } | { data: Uint8Array; filename: string } | { url: string };

/** POST /v1/stt (`file` last as the API requires). */
export async function transcribe(
  http: HttpClient,
  input: TranscribeInput,
  form: SttForm,
  signal?: AbortSignal,
): Promise<SttResponse> {
  const parts: MultipartPart[] = [];
  for (const [k, v] of Object.entries(form)) if (v !== undefined) parts.push({ name: k, value: String(v) });
  if ('url' in input) parts.push({ name: 'url', value: input.url });
  else if ('data' in input)
    parts.push({
      name: 'file',
      filename: basename(input.filename),
      contentType: 'application/octet-stream',
      data: input.data,
    });
  else
    parts.push({
      name: 'file',
      filename: basename(input.path),
      contentType: 'application/octet-stream',
      path: input.path,
      size: input.size,
    });
  const mp = buildMultipart(parts);
  const res = await http.request({
    method: 'POST',
    path: '/v1/stt',
    headers: { 'content-type': mp.contentType, 'content-length': String(mp.contentLength) },
    body: mp.body,
    signal,
  });
  const body = await res.json<SttResponse>();
  if (!body || typeof body.text !== 'string')
    throw new ProtocolError('the transcription reply has no `text` field', res.requestId);
  return body;
}

/**
 * The query as the commands build it from checked flags (number, string): Query<'streamSpeechToText'> types
 * sample_rate and the model as the document's literals, which the commands' option types do not carry yet.
 */
export interface SttStreamQuery {
  sample_rate?: number;
  encoding?: string;
  interim_results?: boolean;
  endpointing?: number;
  language?: string;
  format?: boolean;
  model?: string;
  multichannel?: boolean;
  channels?: number;
  diarize?: boolean;
  keyterm?: string[];
  filler_words?: boolean;
  smart_turn?: number;
  smart_turn_timeout?: number;
  vad_threshold?: number;
}

export type SttPartial = Extract<Schema<'SttServerEvent'>, { type: 'transcript.partial' }>;

export type SttDone = Extract<Schema<'SttServerEvent'>, { type: 'transcript.done' }>;

export type SttEvent =
  | { type: 'transcript.created'; id?: string; [k: string]: unknown }
  | SttPartial
  | SttDone
  | { type: string; [k: string]: unknown };

/** One streaming STT connection (one utterance stream per connection). */
export class SttSocket {
  constructor(readonly conn: WsConnection) {}

  static async open(
    connect: (
      path: string,
      query: Record<string, string | number | boolean | (string | number)[] | undefined>,
    ) => Promise<WsConnection>,
    query: SttStreamQuery,
  ): Promise<SttSocket> {
    return new SttSocket(await connect('/v1/stt', { ...query }));
  }

  sendAudio(frame: Uint8Array): void {
    this.conn.sendBinary(frame);
  }
  finalize(): void {
    this.conn.send({ type: 'finalize' });
  }
  audioDone(): void {
    if (this.conn.isOpen) this.conn.send({ type: 'audio.done' });
  }
  close(): void {
    this.conn.close();
  }

  /** The next event; undefined once the server closed. `error` events are thrown as ApiError. */
  async next(): Promise<SttEvent | undefined> {
    for (;;) {
      const m = await this.conn.next();
      if (!m) return undefined;
      if (m.type === 'binary') continue; // not delivered: the connection does not take binary frames (net/ws)
      const ev = m.data as SttEvent;
      if (ev.type === 'error')
        throw new ApiError(
          400,
          String((ev as { message?: unknown }).message ?? 'speech to text failed'),
          'stream-error',
        );
      return ev;
    }
  }
}
