// Text to speech: POST /v1/tts and the streaming /v1/tts WebSocket (wire-details.md). The emulator speaks in
// tones (tones.ts) that its speech to text decodes again; every codec is real audio (WAV, PCM, mu-law,
// A-law, MP3 through lamejs). Voices differ in loudness, which the STT's diarization tells apart.
import type { RawData, WebSocket } from 'ws';
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Mp3Encoder, encodeAudio, encodeSamples, wavHeader } from 'svc-formats/audio-codecs';
import { contentTypeOf, normalizeCodec, type Codec, type PcmFormat } from 'svc-formats/audio-format';
import type { Backend } from '../state/backend.js';
import type { EmuRequest, Router } from '../http/router.js';
import { HttpError, invalid } from '../core/errors.js';
import { synthesize, type CharTiming } from '../voice/tones.js';
import { handleUnknown, requestCheckerNow } from '../http/request-check.js';
import { findVoice } from '../voice/voices.js';
import { OPERATIONS, SCHEMAS } from 'svc-formats/api-facts';

// The emulator's own reading of voice-api.md (never the client's constants: the emulator is the oracle that
// catches a wrong client constant). "Rules for TTS REST": text max 60,000 characters; the supported languages
// and the default voice (the document's SpeechLanguage and voice defaults, through svc-formats/api-facts).
const TTS_MAX_TEXT = 60_000;
const TTS_LANGUAGES: readonly string[] = SCHEMAS.SpeechLanguage.$.enum;
/** the voice of a request that names none: the document's default of POST /v1/tts voice_id, or of the socket's */
const DEFAULT_VOICE = {
  voice_id: OPERATIONS.textToSpeech.fields['body.voice_id'].default,
  voice: OPERATIONS.streamTextToSpeech.fields['query.voice'].default,
};
/** loudness of each built-in voice (custom voices: 0.87) */
export const VOICE_LEVEL: Record<string, number> = { eve: 1, ara: 0.75, rex: 0.56, sal: 0.42, leo: 0.32 };
const PAUSE_MS: Record<string, number> = { pause: 400, 'long-pause': 1200 };
const INLINE_TAGS = [
  'pause',
  'long-pause',
  'hum-tune',
  'laugh',
  'chuckle',
  'giggle',
  'cry',
  'tsk',
  'tongue-click',
  'lip-smack',
  'breath',
  'inhale',
  'exhale',
  'sigh',
];
const WRAP_TAGS = [
  'soft',
  'whisper',
  'loud',
  'build-intensity',
  'decrease-intensity',
  'higher-pitch',
  'lower-pitch',
  'slow',
  'fast',
  'sing-song',
  'singing',
  'emphasis',
];

export interface TtsParams {
  voice: string;
  level: number;
  language: string;
  codec: Codec;
  sampleRate: number;
  bitRate: number;
  speed: number;
  textNormalization: boolean;
  withTimestamps: boolean;
}

/** RFC 5646 syntax: language[-script][-region][-variant…][-extension…][-x-private], or a private-use tag */
const WELL_FORMED_TAG = new RegExp(
  `^(?:${[
    '(?:[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4,8})', // language, with extended subtags
    '(?:-[a-z]{4})?', // script
    String.raw`(?:-(?:[a-z]{2}|\d{3}))?`, // region
    String.raw`(?:-(?:[a-z\d]{5,8}|\d[a-z\d]{3}))*`, // variants
    String.raw`(?:-[a-wyz\d](?:-[a-z\d]{2,8})+)*`, // extensions
    String.raw`(?:-x(?:-[a-z\d]{1,8})+)?`, // private use
  ].join('')}|x(?:-[a-z\\d]{1,8})+)$`,
  'i',
);

function checkLanguage(v: unknown, field: string): string {
  if (typeof v !== 'string')
    invalid(`Invalid value for \`${field}\`: ${JSON.stringify(v)}; must be a BCP-47 code or auto`);
  const found = TTS_LANGUAGES.find((l) => l.toLowerCase() === v.toLowerCase());
  if (found) return found;
  // "other languages may work with varying accuracy": any well-formed BCP-47 tag is taken
  if (!WELL_FORMED_TAG.test(v))
    invalid(
      `Invalid value for \`${field}\`: ${JSON.stringify(v)}; must be a BCP-47 code or auto (supported: ` +
        `${TTS_LANGUAGES.join(', ')})`,
    );
  return v;
}

function resolveParams(
  core: Backend,
  req: EmuRequest,
  raw: Record<string, unknown>,
  names: { voice: keyof typeof DEFAULT_VOICE },
): TtsParams {
  const voiceId = raw.voice === undefined || raw.voice === null ? DEFAULT_VOICE[names.voice] : String(raw.voice);
  const voice = findVoice(core, voiceId, req.key?.team_id);
  if (!voice)
    invalid(
      `Invalid value for \`${names.voice}\`: ${JSON.stringify(voiceId)}; not a built-in voice ` +
        `(${SCHEMAS.BuiltinVoiceId.$.enum.join(', ')}) or a custom voice of the team`,
    );
  const language = checkLanguage(raw.language, 'language');
  const codec = raw.codec === undefined || raw.codec === null ? 'mp3' : normalizeCodec(String(raw.codec));
  if (!codec)
    invalid(`Invalid value for \`codec\`: ${JSON.stringify(raw.codec)}; must be one of mp3, wav, pcm, mulaw, alaw`);
  // sample_rate, bit_rate, speed and optimize_streaming_latency are within the document's enums and range
  // (request-check.ts checks the body and the WebSocket's query)
  const sampleRate = raw.sample_rate === undefined || raw.sample_rate === null ? 24000 : Number(raw.sample_rate);
  const bitRate = raw.bit_rate === undefined || raw.bit_rate === null ? 128000 : Number(raw.bit_rate);
  const speed = raw.speed === undefined || raw.speed === null ? 1 : Number(raw.speed);
  return {
    voice: voice.voice_id,
    level: voice.custom ? 0.87 : (VOICE_LEVEL[voice.voice_id] ?? 1),
    language,
    codec,
    sampleRate,
    bitRate,
    speed,
    textNormalization: bool(raw.text_normalization, 'text_normalization'),
    withTimestamps: bool(raw.with_timestamps, 'with_timestamps'),
  };
}

function bool(v: unknown, field: string): boolean {
  if (v === undefined || v === null) return false;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  invalid(`Invalid value for \`${field}\`: ${JSON.stringify(v)}; must be true or false`);
}

// ------------------------------------------------------------------------------------------------ text → sound

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

export function numberWords(n: number): string {
  if (n < 20) return ONES[n]!;
  if (n < 100) return TENS[Math.floor(n / 10)]! + (n % 10 ? `-${ONES[n % 10]}` : '');
  if (n < 1000) return `${ONES[Math.floor(n / 100)]} hundred${n % 100 ? ` ${numberWords(n % 100)}` : ''}`;
  if (n < 1_000_000)
    return `${numberWords(Math.floor(n / 1000))} thousand${n % 1000 ? ` ${numberWords(n % 1000)}` : ''}`;
  return String(n)
    .split('')
    .map((d) => ONES[Number(d)])
    .join(' ');
}

/** Written form → spoken form (text_normalization): numbers, %, &, +. */
export function normalizeText(text: string): string {
  return text
    .replace(/\d+/g, (d) =>
      d.length > 7
        ? d
            .split('')
            .map((c) => ONES[Number(c)])
            .join(' ')
        : numberWords(Number(d)),
    )
    .replace(/%/g, ' percent')
    .replace(/&/g, ' and ')
    .replace(/\+/g, ' plus ');
}

/** Split text into spoken pieces and pauses; speech tags are not spoken. */
export function speechPieces(text: string): { text: string; pauseMs?: number }[] {
  const out: { text: string; pauseMs?: number }[] = [];
  const re = new RegExp(`\\[(${INLINE_TAGS.join('|')})\\]|</?(${WRAP_TAGS.join('|')})>`, 'g');
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    if (m.index > last) out.push({ text: text.slice(last, m.index) });
    if (m[1] && PAUSE_MS[m[1]]) out.push({ text: '', pauseMs: PAUSE_MS[m[1]] });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}

interface Rendered {
  pcm: Buffer;
  chars: CharTiming[];
}

/** Render text (tags, normalization) to PCM s16le mono; timings in seconds from `offsetSec`. */
export function render(
  text: string,
  p: TtsParams,
  opts: { leadMs: number; tailMs: number; offsetSec: number },
): Rendered {
  const parts: Buffer[] = [];
  const chars: CharTiming[] = [];
  let t = opts.offsetSec;
  const silence = (ms: number) => {
    const n = Math.round((p.sampleRate * ms) / 1000);
    parts.push(Buffer.alloc(n * 2));
    t += n / p.sampleRate;
  };
  if (opts.leadMs) silence(opts.leadMs);
  for (const piece of speechPieces(text)) {
    if (piece.pauseMs) {
      silence(piece.pauseMs);
      continue;
    }
    const spoken = p.textNormalization ? normalizeText(piece.text) : piece.text;
    if (!spoken) continue;
    const r = synthesize(spoken, p.sampleRate, { speed: p.speed, leadMs: 0, tailMs: 0, volume: p.level });
    for (const c of r.chars) chars.push({ char: c.char, start: round2(c.start + t), end: round2(c.end + t) });
    parts.push(r.pcm);
    t += r.pcm.length / 2 / p.sampleRate;
  }
  if (opts.tailMs) silence(opts.tailMs);
  return { pcm: Buffer.concat(parts), chars };
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

function timestamps(chars: CharTiming[]) {
  return { graph_chars: chars.map((c) => c.char), graph_times: chars.map((c) => [c.start, c.end]) };
}

// ------------------------------------------------------------------------------------------------ routes

export function register(router: Router): void {
  router.post('/v1/tts', async (req, res, core) => {
    const body = await req.json<Record<string, unknown>>();
    // text (required, a string) and output_format (an object): the document's (request-check.ts)
    const of = (body.output_format ?? {}) as Record<string, unknown>;
    const p = resolveParams(
      core,
      req,
      { ...body, voice: body.voice_id, codec: of.codec, sample_rate: of.sample_rate, bit_rate: of.bit_rate },
      { voice: 'voice_id' },
    );
    // a client that went away (or a server that stops) ends the work between two slices
    const gone = () => res.raw.destroyed || !!res.raw.socket?.destroyed;
    const r = await renderInSlices(body.text as string, p, gone);
    const audio = await encodeInSlices(r.pcm, p, gone);
    const duration = round2(r.pcm.length / 2 / p.sampleRate);
    if (core.settings.ttsRawReplies && !p.withTimestamps) {
      res.raw.writeHead(200, {
        'content-type': contentTypeOf(p.codec),
        'content-length': audio.length,
        'x-request-id': req.requestId,
      });
      res.raw.end(audio);
      return;
    }
    const rest = JSON.stringify({
      content_type: contentTypeOf(p.codec),
      duration,
      ...(p.withTimestamps ? { audio_timestamps: timestamps(r.chars) } : {}),
    });
    if (audio.length <= ENCODE_SLICE) return res.json(200, { audio: audio.toString('base64'), ...JSON.parse(rest) });
    await writeJsonWithAudio(res.raw, audio, rest);
  });

  router.ws('/v1/tts', (ws, req, core) => streamTts(ws, req, core));
}

/** PCM bytes encoded (and base64 written) at a time by the REST endpoint before it yields to the event loop */
const ENCODE_SLICE = 3 * 256 * 1024;

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

/** Between two slices of work: the event loop runs, and the work ends when its client is gone. */
async function nextSlice(gone: () => boolean): Promise<void> {
  await yieldToLoop();
  if (gone()) throw new HttpError(499, 'The client closed the connection');
}

/** The REST request's text rendered as render() would, a slice at a time (the event loop runs between slices). */
async function renderInSlices(text: string, p: TtsParams, gone: () => boolean): Promise<Rendered> {
  const parts = slices(text, STREAM_SLICE);
  if (parts.length === 1) return render(text, p, { leadMs: 60, tailMs: 120, offsetSec: 0 });
  const pcm: Buffer[] = [];
  const chars: CharTiming[] = [];
  let offsetSec = 0;
  for (const [i, part] of parts.entries()) {
    const r = render(part, p, { leadMs: i === 0 ? 60 : 0, tailMs: i === parts.length - 1 ? 120 : 0, offsetSec });
    pcm.push(r.pcm);
    chars.push(...r.chars);
    offsetSec += r.pcm.length / 2 / p.sampleRate;
    await nextSlice(gone);
  }
  return { pcm: Buffer.concat(pcm), chars };
}

/** The PCM in the request's codec; long audio encoded a slice at a time (MP3 through one streaming encoder). */
async function encodeInSlices(pcm: Buffer, p: TtsParams, gone: () => boolean): Promise<Buffer> {
  const format = { sampleRate: p.sampleRate, channels: 1 };
  if (pcm.length <= ENCODE_SLICE || p.codec === 'pcm' || p.codec === 'wav')
    return encodeAudio(pcm, format, p.codec, { bitRate: p.bitRate });
  const mp3 = p.codec === 'mp3' ? await Mp3Encoder.create(format, p.bitRate) : undefined;
  const out: Buffer[] = [];
  for (let at = 0; at < pcm.length; at += ENCODE_SLICE) {
    const slice = pcm.subarray(at, at + ENCODE_SLICE);
    out.push(mp3 ? mp3.encode(slice) : encodeSamples(slice, p.codec === 'mulaw' ? 'mulaw' : 'alaw'));
    await nextSlice(gone);
  }
  if (mp3) out.push(mp3.flush());
  return Buffer.concat(out);
}

/** `{"audio":"<base64>",…rest}` written a slice of base64 at a time, waiting for the socket to drain. */
async function writeJsonWithAudio(raw: ServerResponse, audio: Buffer, rest: string): Promise<void> {
  raw.writeHead(200, { 'content-type': 'application/json' });
  raw.write('{"audio":"');
  for (let at = 0; at < audio.length; at += ENCODE_SLICE) {
    if (raw.destroyed) return;
    // slices of a multiple of 3 bytes: their base64 concatenates to the whole's
    if (!raw.write(audio.subarray(at, at + ENCODE_SLICE).toString('base64')))
      await new Promise<void>((r) => {
        raw.once('drain', r);
        raw.once('close', r);
      });
    else await yieldToLoop();
  }
  raw.end(`",${rest.slice(1)}`);
}

/** a streamed text.delta longer than this is rendered in slices of about this many characters */
const STREAM_SLICE = 256;

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The text cut at whitespace (tags hold none) into slices of at most about `size` characters, in order. */
function slices(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + size);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > at) end = space;
      // never between the two halves of a surrogate pair
      else if (/[\uD800-\uDBFF]/.test(text[end - 1]!)) end++;
    }
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

function send(ws: WebSocket, ev: Record<string, unknown>): void {
  if (ws.readyState === 1) ws.send(JSON.stringify(ev));
}

async function streamTts(ws: WebSocket, req: EmuRequest, core: Backend): Promise<void> {
  const p = streamParams(ws, req, core);
  if (!p) return;
  const speech = new StreamedSpeech(ws, core, p);
  let queue = Promise.resolve();
  ws.on('message', (data, isBinary) => {
    const msg = clientMessage(ws, data, isBinary);
    if (!msg) return;
    const refused = req.checkEvent(msg);
    // handled in order, one at a time (a refusal too)
    queue = queue
      .then(() => (refused ? send(ws, { type: 'error', message: refused }) : speech.handle(msg)))
      .catch((err: Error) => send(ws, { type: 'error', message: `emulator failure: ${err.message}` }));
  });
  await new Promise<void>((resolve) => ws.once('close', () => resolve()));
}

/** The stream's parameters from the query; undefined when refused (an error event, then the socket closed). */
function streamParams(ws: WebSocket, req: EmuRequest, core: Backend): TtsParams | undefined {
  try {
    const q = Object.fromEntries(req.query.entries()) as Record<string, unknown>;
    if (q.language === undefined) invalid('Missing query parameter `language` (a BCP-47 code or auto)');
    handleUnknown(requestCheckerNow()?.query('GET', '/v1/tts', req.query) ?? [], 'query parameter', {
      strict: core.strict,
      warn: () => {},
    });
    return resolveParams(core, req, q, { voice: 'voice' });
  } catch (err) {
    send(ws, { type: 'error', message: (err as Error).message });
    ws.close(1008, err instanceof HttpError ? 'invalid request' : 'error');
    return undefined;
  }
}

/** A client message, parsed; undefined after an error event for a binary frame or text that is not JSON. */
function clientMessage(ws: WebSocket, data: RawData, isBinary: boolean): Record<string, unknown> | undefined {
  if (isBinary) {
    send(ws, { type: 'error', message: 'binary frames are not accepted: send {"type":"text.delta","delta":"..."}' });
    return undefined;
  }
  try {
    return JSON.parse(data.toString()) as Record<string, unknown>;
  } catch {
    send(ws, { type: 'error', message: 'message is not JSON' });
    return undefined;
  }
}

/** The speech of one socket: each text.delta rendered and sent at once, text.done ends the utterance. */
class StreamedSpeech {
  private readonly format: PcmFormat;
  /** an utterance is in progress */
  private started = false;
  private offsetSec = 0;
  private mp3: Mp3Encoder | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly core: Backend,
    private readonly p: TtsParams,
  ) {
    this.format = { sampleRate: p.sampleRate, channels: 1 };
  }

  async handle(msg: Record<string, unknown>): Promise<void> {
    switch (msg.type) {
      case 'text.delta':
        // a string: the document's check passed
        return this.delta(msg.delta as string);
      case 'text.done':
        return this.done();
      case 'text.clear':
        this.reset();
        return send(this.ws, { type: 'audio.clear' });
      default:
        return send(this.ws, {
          type: 'error',
          message: `unknown message type ${JSON.stringify(msg.type)}; expected text.delta, text.done or text.clear`,
        });
    }
  }

  /** characters of the utterance in progress (the REST limit applies to an utterance as to a request) */
  private chars = 0;

  /**
   * One text.delta: refused with an error event past the REST text limit (the message alone, or the utterance with
   * it); a long one rendered and sent a slice at a time, yielding to the event loop between slices.
   */
  private async delta(delta: string): Promise<void> {
    const n = delta.length > 2 * TTS_MAX_TEXT ? delta.length : codePoints(delta);
    if (n > TTS_MAX_TEXT)
      return send(this.ws, {
        type: 'error',
        message: `text.delta is too long: ${n} characters; at most ${TTS_MAX_TEXT} per message`,
      });
    if (this.chars + n > TTS_MAX_TEXT)
      return send(this.ws, {
        type: 'error',
        message:
          `the utterance is too long: ${this.chars + n} characters; at most ${TTS_MAX_TEXT} before text.done ` +
          `(this text.delta was not spoken)`,
      });
    this.chars += n;
    for (const slice of slices(delta, STREAM_SLICE)) {
      if (this.ws.readyState !== 1) return;
      await this.text(slice);
      if (slice.length < delta.length) await new Promise((r) => setImmediate(r));
    }
  }

  private async text(delta: string): Promise<void> {
    const first = !this.started;
    this.started = true;
    const r = render(delta, this.p, { leadMs: first ? 60 : 0, tailMs: 0, offsetSec: this.offsetSec });
    this.offsetSec += r.pcm.length / 2 / this.p.sampleRate;
    await this.emitAudio(r.pcm, r.chars, first);
  }

  private async done(): Promise<void> {
    const first = !this.started;
    const tail = render('', this.p, { leadMs: first ? 60 : 0, tailMs: 120, offsetSec: this.offsetSec });
    await this.emitAudio(tail.pcm, [], first);
    if (this.mp3) {
      const rest = this.mp3.flush();
      if (rest.length) {
        this.core.emit('tts.audio.delta', { time: performance.now(), bytes: rest.length });
        send(this.ws, { type: 'audio.delta', delta: rest.toString('base64') });
      }
    }
    send(this.ws, { type: 'audio.done', trace_id: this.core.uuid() });
    this.reset();
  }

  private reset(): void {
    this.chars = 0;
    this.started = false;
    this.offsetSec = 0;
    this.mp3 = undefined;
  }

  private async emitAudio(pcm: Buffer, chars: CharTiming[], first: boolean): Promise<void> {
    const p = this.p;
    let bytes: Buffer;
    if (p.codec === 'mp3') {
      this.mp3 ??= await Mp3Encoder.create(this.format, p.bitRate);
      bytes = this.mp3.encode(pcm);
    } else if (p.codec === 'wav') bytes = first ? Buffer.concat([wavHeader(this.format), pcm]) : pcm;
    else bytes = encodeSamples(pcm, p.codec === 'pcm' ? 'pcm' : p.codec);
    if (bytes.length === 0 && !(p.withTimestamps && chars.length)) return;
    this.core.emit('tts.audio.delta', { time: performance.now(), bytes: bytes.length });
    send(this.ws, {
      type: 'audio.delta',
      delta: bytes.toString('base64'),
      ...(p.withTimestamps ? { audio_timestamps: timestamps(chars) } : {}),
    });
  }
}
