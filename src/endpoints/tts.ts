// Text to speech: POST /v1/tts (one shot) and the /v1/tts WebSocket (streaming, multi-utterance).
// No terminal code here.
import type { JsonBody, JsonReply, Schema } from './api-shapes.js';
import type { HttpClient } from '../net/http.js';
import type { WsConnection } from '../net/ws.js';
import { ApiError, ProtocolError } from '../core/errors.js';
import { codecFromContentType, type Codec } from 'svc-formats/audio-format';
import { MAGIC, checkMagic, checkedBody, type BinaryKind } from '../net/binary-reply.js';
import { SCHEMAS } from 'svc-formats/api-facts';

/** the supported languages (the document's SpeechLanguage); other well-formed tags are accepted too */
export const TTS_LANGUAGES = SCHEMAS.SpeechLanguage.$.enum;
/**
 * A well-formed BCP-47 tag (RFC 5646 syntax: language[-script][-region][-variant…][-extension…][-x-private]) or
 * `auto`.
 */
export const BCP47 = new RegExp(
  `^(?:auto|${[
    '(?:[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4,8})', // language, with extended subtags
    '(?:-[a-z]{4})?', // script
    String.raw`(?:-(?:[a-z]{2}|\d{3}))?`, // region
    String.raw`(?:-(?:[a-z\d]{5,8}|\d[a-z\d]{3}))*`, // variants
    String.raw`(?:-[a-wyz\d](?:-[a-z\d]{2,8})+)*`, // extensions
    String.raw`(?:-x(?:-[a-z\d]{1,8})+)?`, // private use
  ].join('')}|x(?:-[a-z\\d]{1,8})+)$`,
  'i',
);
/** The listed spelling of a supported language (case-insensitive), or undefined for another language. */
/** The codec the API answers in when a request names none (the document's Codec default). */
export const TTS_DEFAULT_CODEC = SCHEMAS.Codec.$.default;

export function listedLanguage(tag: string): string | undefined {
  return TTS_LANGUAGES.find((l) => l.toLowerCase() === tag.toLowerCase());
}
export const TTS_MAX_TEXT = 60_000;
export const TTS_SPEED = { min: 0.7, max: 1.5 } as const;

export type TtsRequest = JsonBody<'textToSpeech'>;

export type SampleRate = Schema<'SampleRate'>;
export type BitRate = Schema<'BitRate'>;
export type AudioTimestamps = Schema<'AudioTimestamps'>;

export type TtsResponse = JsonReply<'textToSpeech'>;

export type TtsResult =
  | { kind: 'json'; response: TtsResponse; audio: Buffer; codec?: Codec; requestId?: string }
  | { kind: 'raw'; contentType: string; codec?: Codec; body: AsyncIterable<Uint8Array>; requestId?: string };

/** What a reply of `codec` must look like: an audio content type and, for MP3 and WAV, their first bytes. */
export function audioKind(codec: Codec): BinaryKind {
  const magic = codec === 'mp3' ? MAGIC.mp3 : codec === 'wav' ? MAGIC.wav : undefined;
  return {
    what: `${codec === 'mp3' ? 'MP3' : codec === 'wav' ? 'WAV' : codec} audio`,
    contentTypes: /^audio\//,
    magic,
  };
}

/**
 * POST /v1/tts. The reply is JSON with base64 audio, or raw audio bytes (decided by Content-Type); either is
 * checked against the codec (the one the reply names, else the one asked): an HTML page or the wrong bytes are a
 * protocol error before anything is written.
 */
export async function synthesize(http: HttpClient, req: TtsRequest, signal?: AbortSignal): Promise<TtsResult> {
  const res = await http.request({
    method: 'POST',
    path: '/v1/tts',
    json: req,
    signal,
    headers: { accept: 'application/json, audio/*' },
  });
  const ct = String(res.headers['content-type'] ?? '');
  const format = req.output_format?.codec ?? TTS_DEFAULT_CODEC;
  const asked = format === 'ulaw' ? 'mulaw' : format; // the document's synonym
  if (/json/i.test(ct)) {
    const response = await res.json<TtsResponse>();
    if (!response || typeof response.audio !== 'string')
      throw new ProtocolError('the TTS reply has no `audio` field', res.requestId);
    const audio = Buffer.from(response.audio, 'base64');
    const codec = codecFromContentType(response.content_type ?? '');
    checkMagic(audio, audioKind(codec ?? asked), res.requestId);
    return { kind: 'json', response, audio, codec, requestId: res.requestId };
  }
  const codec = codecFromContentType(ct);
  const body = checkedBody(
    { headers: res.headers, body: res.body as AsyncIterable<Uint8Array>, requestId: res.requestId },
    audioKind(codec ?? asked),
  );
  return { kind: 'raw', contentType: ct, codec, body, requestId: res.requestId };
}

/**
 * Query of the streaming endpoint (only the values given are sent), as the commands build it from checked flags:
 * Query<'streamTextToSpeech'> types the rates as the document's literals, which their option types do not carry yet.
 */
export interface TtsStreamQuery {
  voice?: string;
  language: string;
  codec?: Codec;
  sample_rate?: number;
  bit_rate?: number;
  optimize_streaming_latency?: number;
  speed?: number;
  text_normalization?: boolean;
  with_timestamps?: boolean;
}

export type TtsEvent =
  | { type: 'audio.delta'; audio: Buffer; audio_timestamps?: AudioTimestamps; raw: Record<string, unknown> }
  | { type: 'audio.done'; trace_id?: string; raw: Record<string, unknown> }
  | { type: 'audio.clear'; raw: Record<string, unknown> }
  | { type: 'other'; raw: Record<string, unknown> };

/** One streaming TTS connection: send text, read audio. Several utterances may follow each other. */
export class TtsSocket {
  constructor(readonly conn: WsConnection) {
    // audio may come as binary frames as well as base64 in audio.delta events
    conn.binaryFrames = true;
  }

  static async open(
    connect: (path: string, query: Record<string, string | number | boolean | undefined>) => Promise<WsConnection>,
    query: TtsStreamQuery,
  ): Promise<TtsSocket> {
    return new TtsSocket(await connect('/v1/tts', { ...query }));
  }

  sendText(delta: string): void {
    if (delta) this.conn.send({ type: 'text.delta', delta });
  }
  /** end the utterance: the server finishes its audio and answers audio.done */
  done(): void {
    this.conn.send({ type: 'text.done' });
  }
  clear(): void {
    this.conn.send({ type: 'text.clear' });
  }
  close(): void {
    this.conn.close();
  }

  /** The next event; undefined when the connection closed. An `error` event is thrown as an ApiError. */
  async next(): Promise<TtsEvent | undefined> {
    for (;;) {
      const m = await this.conn.next();
      if (!m) return undefined;
      if (m.type === 'binary') return { type: 'audio.delta', audio: m.data, raw: {} };
      const ev = m.data;
      switch (ev.type) {
        case 'audio.delta': {
          if (typeof ev.delta !== 'string') throw new ProtocolError('audio.delta without a `delta` string');
          return {
            type: 'audio.delta',
            audio: Buffer.from(ev.delta, 'base64'),
            audio_timestamps: ev.audio_timestamps as AudioTimestamps | undefined,
            raw: ev,
          };
        }
        case 'audio.done':
          return { type: 'audio.done', trace_id: ev.trace_id as string | undefined, raw: ev };
        case 'audio.clear':
          return { type: 'audio.clear', raw: ev };
        case 'error':
          throw new ApiError(
            400,
            String(ev.message ?? (ev.error as { message?: string } | undefined)?.message ?? 'text to speech failed'),
            'stream-error',
          );
        default:
          return { type: 'other', raw: ev };
      }
    }
  }
}
