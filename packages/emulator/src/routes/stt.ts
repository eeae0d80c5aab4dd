// Speech to text: POST /v1/stt (multipart upload or URL) and the streaming /v1/stt WebSocket
// (wire-details.md). Tone-coded speech (tones.ts, what the emulator's TTS produces) is decoded to its text;
// any other audio is transcribed as its voiced segments (`[speech]` words with their timings). Diarization
// tells voices apart by loudness (each built-in TTS voice has its own level).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebSocket } from 'ws';
import { performance } from 'node:perf_hooks';
import { decodeAudio, decodeSamples, extractChannel, isMp3, isWav, mixChannels } from 'svc-formats/audio-codecs';
import { SAMPLE_RATES, type Encoding } from 'svc-formats/audio-format';
import type { Backend } from '../state/backend.js';
import type { EmuRequest, Router } from '../http/router.js';
import { HttpError, invalid } from '../core/errors.js';
import { parseForm, type FormFile } from '../http/formdata.js';
import { handleUnknown, requestCheckerNow } from '../http/request-check.js';
import { toFloat, transcribeTones } from '../voice/tones.js';
import { Endpointer, frameLevels, voicedSegments } from '../voice/vad.js';
import { yieldToLoop } from '../core/yield-loop.js';
import { OPERATIONS, SCHEMAS } from 'svc-formats/api-facts';

/** the document's limit of a transcription's file (its `file` part's maxLength), in bytes, and as it is said */
const MAX_FILE: number = OPERATIONS.speechToText.fields['body.file'].maxLength;
const MAX_FILE_SAID = `${MAX_FILE / 2 ** 20} MB`;
/** the most audio a streaming session holds for one utterance, in seconds */
const MAX_UTTERANCE_SECONDS = 60;
const RAW: readonly string[] = SCHEMAS.SttRawFormat.$.enum;
const FORMAT_LANGS: readonly string[] = SCHEMAS.SttFormatLanguage.$.enum;
const FILLERS = /^(u+m+|u+h+|e+r+m*|a+h+|h+m+|m+h*m+|uh-huh)[,.!?]*$/i;
/** the emulator's VAD needs this much silence to call a boundary (tone symbols are 20 ms apart) */
const VAD_BOUNDARY_MS = 60;

export interface Word {
  text: string;
  start: number;
  end: number;
  confidence?: number;
  speaker?: number;
}

export interface TranscribeOptions {
  diarize?: boolean;
  fillerWords?: boolean;
  format?: boolean;
  keyterms?: string[];
  /** speech-probability gate 0-1 (segments quieter than this share of full scale × 0.25 are dropped) */
  vadThreshold?: number;
  /** speaker levels seen so far (kept per session so speaker numbers stay stable) */
  speakers?: number[];
}

const round2 = (v: number) => Math.round(v * 100) / 100;

const NUMBER_WORDS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};

/** Inverse text normalization (format=true): number words → digits, "percent" → %. */
function formatWord(w: string): string {
  const m = /^([a-z-]+)([,.!?]*)$/i.exec(w);
  if (!m) return w;
  const base = m[1]!.toLowerCase();
  if (base === 'percent') return `%${m[2]}`;
  const parts = base.split('-');
  if (parts.every((p) => p in NUMBER_WORDS)) return `${parts.reduce((a, p) => a + NUMBER_WORDS[p]!, 0)}${m[2]}`;
  return w;
}

/** Transcribe PCM s16le mono: words with timings (seconds from `offsetSec`). */
export function transcribe(
  pcm: Buffer,
  sampleRate: number,
  offsetSec: number,
  opts: TranscribeOptions = {},
): { text: string; words: Word[] } {
  const tones = transcribeTones(pcm, sampleRate, offsetSec);
  let words: Word[] = [];
  if (tones.chars.length) {
    let cur: { text: string; start: number; end: number } | undefined;
    for (const c of tones.chars) {
      if (/\s/.test(c.char)) {
        if (cur) words.push({ ...cur, confidence: 0.99 });
        cur = undefined;
        continue;
      }
      // a pause longer than a symbol gap also separates words (utterances spoken one after the other)
      if (cur && c.start - cur.end > 0.15) {
        words.push({ ...cur, confidence: 0.99 });
        cur = undefined;
      }
      if (!cur) cur = { text: c.char, start: c.start, end: c.end };
      else {
        cur.text += c.char;
        cur.end = c.end;
      }
    }
    if (cur) words.push({ ...cur, confidence: 0.99 });
  } else {
    const gate = (opts.vadThreshold ?? 0.08) * 0.25;
    for (const s of voicedSegments(pcm, sampleRate)) {
      if (s.level < gate) continue;
      words.push({
        text: '[speech]',
        start: round2(s.start + offsetSec),
        end: round2(s.end + offsetSec),
        confidence: 0.5,
      });
    }
  }
  if (!opts.fillerWords) words = words.filter((w) => !FILLERS.test(w.text));
  if (opts.format) words = words.map((w) => ({ ...w, text: formatWord(w.text) }));
  if (opts.keyterms?.length) {
    words = words.map((w) => {
      const k = opts.keyterms!.find((t) => t.toLowerCase() === w.text.replace(/[,.!?]+$/, '').toLowerCase());
      return k ? { ...w, text: k + w.text.slice(k.length) } : w;
    });
  }
  if (opts.diarize) {
    const x = toFloat(pcm);
    const speakers = opts.speakers ?? [];
    for (const w of words) {
      const a = Math.max(0, Math.floor((w.start - offsetSec) * sampleRate));
      const b = Math.min(x.length, Math.ceil((w.end - offsetSec) * sampleRate));
      let peak = 0;
      for (let i = a; i < b; i++) peak = Math.max(peak, Math.abs(x[i]!));
      let idx = speakers.findIndex((l) => Math.max(l, peak) / Math.max(1e-6, Math.min(l, peak)) < 1.15);
      if (idx < 0) {
        speakers.push(peak);
        idx = speakers.length - 1;
      }
      w.speaker = idx;
    }
  }
  return { text: words.map((w) => w.text).join(' '), words };
}

function boolField(v: string | undefined, name: string): boolean {
  if (v === undefined || v === '') return false;
  if (/^(true|1)$/i.test(v)) return true;
  if (/^(false|0)$/i.test(v)) return false;
  invalid(`Invalid value for \`${name}\`: ${JSON.stringify(v)}; must be true or false`);
}

function rateField(v: string | undefined, name: string): number | undefined {
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!(SAMPLE_RATES as readonly number[]).includes(n))
    invalid(`Invalid value for \`${name}\`: ${JSON.stringify(v)}; must be one of ${SAMPLE_RATES.join(', ')}`);
  return n;
}

function checkFormatLanguage(format: boolean, language: string | undefined): void {
  if (!format) return;
  if (!language) invalid('`format=true` requires `language`');
  const base = language.toLowerCase().split('-')[0]!;
  if (!FORMAT_LANGS.includes(base))
    invalid(
      `\`format=true\` is not available for language ${JSON.stringify(language)}; available for ` +
        `${FORMAT_LANGS.join(', ')}`,
    );
}

// ------------------------------------------------------------------------------------------------ REST

export function register(router: Router): void {
  router.post('/v1/stt', async (req, res, core) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-emu-stt-'));
    try {
      const parts = await parseForm(req.raw as AsyncIterable<Buffer>, req.headers['content-type'], {
        dir,
        maxFileBytes: MAX_FILE,
      });
      req.checkForm(parts);
      const fields: Record<string, string> = {};
      let file: FormFile | undefined;
      for (const [i, p] of parts.entries()) {
        if (p.kind === 'file') {
          if (p.name !== 'file') invalid(`Unexpected file part ${JSON.stringify(p.name)}; the audio goes in \`file\``);
          if (i !== parts.length - 1) invalid('`file` must be the last field of the form');
          file = p;
        } else fields[p.name] = p.value;
      }
      if (file?.tooLarge) throw new HttpError(413, `The file is larger than the limit of ${MAX_FILE_SAID}`);
      const result = await transcribeForm(core, fields, file);
      res.json(200, result);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  router.ws('/v1/stt', (ws, req, core) => streamStt(ws, req, core));
}

async function transcribeForm(
  core: Backend,
  fields: Record<string, string>,
  file: FormFile | undefined,
): Promise<Record<string, unknown>> {
  // the form's values were checked against the document (request-check.ts): its enums and ranges hold here
  const audioFormat = fields.audio_format;
  const sampleRate = rateField(
    fields.sample_rate ?? fields.sample_rate_hertz,
    fields.sample_rate !== undefined ? 'sample_rate' : 'sample_rate_hertz',
  );
  const language = fields.language || undefined;
  const format = boolField(fields.format, 'format');
  checkFormatLanguage(format, language);
  const multichannel = boolField(fields.multichannel, 'multichannel');
  const diarize = boolField(fields.diarize, 'diarize');
  const channels = fields.channels === undefined ? undefined : Number(fields.channels);
  let bytes: Buffer;
  if (file) bytes = readFileSync(file.path);
  else if (fields.url) bytes = await download(fields.url);
  else invalid('Either `file` or `url` is required');
  const raw = audioFormat !== undefined && RAW.includes(audioFormat);
  if (raw) {
    if (!sampleRate) invalid(`\`sample_rate\` is required for raw audio (${audioFormat})`);
    if (multichannel && !channels) invalid('`channels` (2 to 8) is required for multichannel raw audio');
  }
  let decoded: { pcm: Buffer; format: { sampleRate: number; channels: number } };
  try {
    if (raw)
      decoded = await decodeAudio(bytes, {
        encoding: audioFormat as Encoding,
        sampleRate,
        channels: multichannel ? channels : 1,
      });
    else if (isWav(bytes) || isMp3(bytes)) decoded = await decodeAudio(bytes);
    else if (audioFormat === undefined)
      invalid(
        'Cannot detect the audio container; for headerless audio set `audio_format` (pcm, mulaw, alaw) and ' +
          '`sample_rate`',
      );
    else invalid(`The emulator decodes WAV, MP3 and raw pcm/mulaw/alaw; ${audioFormat} is not supported here`);
  } catch (err) {
    if (err instanceof HttpError) throw err;
    invalid(`Cannot decode the audio: ${(err as Error).message}`);
  }
  const { pcm, format: fmt } = decoded!;
  const duration = round2(pcm.length / 2 / fmt.channels / fmt.sampleRate);
  const opts: TranscribeOptions = { diarize, format, fillerWords: true, speakers: [] };
  const clean = (w: Word) => (diarize ? w : { text: w.text, start: w.start, end: w.end, confidence: w.confidence });
  if (multichannel && fmt.channels > 1) {
    const chans = [];
    for (let i = 0; i < fmt.channels; i++) {
      const t = await transcribeInWindows(extractChannel(pcm, fmt.channels, i), fmt.sampleRate, opts);
      chans.push({ index: i, language: '', text: t.text, words: t.words.map(clean) });
    }
    const all = chans.flatMap((c) => c.words).sort((a, b) => a.start - b.start);
    return {
      text: all.map((w) => w.text).join(' '),
      language: '',
      duration,
      ...(all.length ? { words: all } : {}),
      channels: chans,
    };
  }
  const mono = mixChannels(pcm, fmt.channels, 1);
  const t = await transcribeInWindows(mono, fmt.sampleRate, opts);
  void core;
  return { text: t.text, language: '', duration, ...(t.words.length ? { words: t.words.map(clean) } : {}) };
}

/** Seconds of audio a window of a long REST transcription ends after (~15 ms of CPU), at its first pause. */
const WINDOW_SEC = 10;
/** How far past WINDOW_SEC a window may go looking for a pause before it is cut anyway. */
const WINDOW_MAX_SEC = 15;
/** A pause a window may end in: 300 ms below this level (longer than any gap inside a word) */
const PAUSE_FRAMES = 30;
const PAUSE_LEVEL = 0.003;

/**
 * transcribe() of a long recording a window at a time, cut in pauses, the event loop running between windows (20
 * minutes at once held it ~3 s). A pause is longer than the gaps that transcribe() keeps inside a word, so the words
 * are the same as in one pass.
 */
async function transcribeInWindows(
  pcm: Buffer,
  sampleRate: number,
  opts: TranscribeOptions,
): Promise<{ text: string; words: Word[] }> {
  const bytesPerSec = sampleRate * 2;
  if (pcm.length <= (WINDOW_SEC + WINDOW_MAX_SEC) * bytesPerSec) return transcribe(pcm, sampleRate, 0, opts);
  const words: Word[] = [];
  for (let start = 0; start < pcm.length; ) {
    const end = windowEnd(pcm, sampleRate, start);
    words.push(...transcribe(pcm.subarray(start, end), sampleRate, start / bytesPerSec, opts).words);
    start = end;
    if (start < pcm.length) await yieldToLoop();
  }
  return { text: words.map((w) => w.text).join(' '), words };
}

/** Where the window from `start` ends: the middle of its first pause after WINDOW_SEC, else at WINDOW_MAX_SEC. */
function windowEnd(pcm: Buffer, sampleRate: number, start: number): number {
  const bytesPerSec = sampleRate * 2;
  const from = start + WINDOW_SEC * bytesPerSec;
  const limit = Math.min(pcm.length, start + WINDOW_MAX_SEC * bytesPerSec);
  if (from >= pcm.length) return pcm.length;
  const levels = frameLevels(pcm.subarray(from, limit), sampleRate);
  const frameBytes = Math.max(1, Math.round(sampleRate / 100)) * 2;
  let run = 0;
  for (let f = 0; f < levels.length; f++) {
    run = levels[f]! < PAUSE_LEVEL ? run + 1 : 0;
    if (run === PAUSE_FRAMES) return from + (f - PAUSE_FRAMES / 2) * frameBytes;
  }
  return limit;
}

async function download(url: string): Promise<Buffer> {
  if (!/^https?:\/\//i.test(url)) invalid(`Invalid value for \`url\`: ${JSON.stringify(url)}; must be an http(s) URL`);
  let res: Response;
  try {
    res = await fetch(url, { redirect: 'follow' });
  } catch (err) {
    invalid(`Cannot download ${url}: ${(err as Error).message}`);
  }
  if (!res!.ok) invalid(`Cannot download ${url}: HTTP ${res!.status}`);
  const buf = Buffer.from(await res!.arrayBuffer());
  if (buf.length > MAX_FILE)
    throw new HttpError(413, `The file at the URL is larger than the limit of ${MAX_FILE_SAID}`);
  return buf;
}

// ------------------------------------------------------------------------------------------------ streaming

interface StreamParams {
  sampleRate: number;
  encoding: Encoding;
  interim: boolean;
  endpointingMs: number;
  language?: string;
  format: boolean;
  multichannel: boolean;
  channels: number;
  diarize: boolean;
  keyterms: string[];
  fillerWords: boolean;
  smartTurn?: number;
  smartTurnTimeoutMs?: number;
  vadThreshold: number;
}

/** A number of the query (its range already checked against the document: request-check.ts). */
function num(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  return v === null || v === '' ? undefined : Number(v);
}

function streamParams(q: URLSearchParams): StreamParams {
  const sampleRate = num(q, 'sample_rate') ?? 16000;
  const encoding = (q.get('encoding') ?? 'pcm').toLowerCase();
  if (encoding === 'opus') invalid('The emulator does not decode opus; use encoding pcm, mulaw or alaw');
  // encoding's and model's values, channels' range: the document's (request-check.ts checks the query)
  const language = q.get('language') || undefined;
  const format = boolField(q.get('format') ?? undefined, 'format');
  checkFormatLanguage(format, language);
  const multichannel = boolField(q.get('multichannel') ?? undefined, 'multichannel');
  const channels = num(q, 'channels') ?? 1;
  if (multichannel && channels < 2) invalid('`multichannel=true` requires `channels` from 2 to 8');
  const keyterms = q.getAll('keyterm');
  if (keyterms.length > 100) invalid(`Too many \`keyterm\` values: ${keyterms.length}; at most 100`);
  const long = keyterms.find((k) => [...k].length > 50);
  if (long !== undefined) invalid(`\`keyterm\` ${JSON.stringify(long)} is too long; at most 50 characters`);
  const smartTurn = num(q, 'smart_turn');
  const smartTurnTimeoutMs = num(q, 'smart_turn_timeout');
  if (smartTurnTimeoutMs !== undefined && smartTurn === undefined)
    invalid('`smart_turn_timeout` is only allowed with `smart_turn`');
  return {
    sampleRate,
    encoding: encoding as Encoding,
    interim: boolField(q.get('interim_results') ?? undefined, 'interim_results'),
    endpointingMs: num(q, 'endpointing') ?? 400,
    language,
    format,
    multichannel,
    channels: multichannel ? channels : 1,
    diarize: boolField(q.get('diarize') ?? undefined, 'diarize'),
    keyterms,
    fillerWords: boolField(q.get('filler_words') ?? undefined, 'filler_words'),
    smartTurn,
    smartTurnTimeoutMs,
    vadThreshold: num(q, 'vad_threshold') ?? 0.08,
  };
}

/** One channel of a streaming session: the audio of the utterance in progress and its end-pointer. */
class ChannelState {
  buf: Buffer[] = [];
  bufStart = 0; // seconds
  samples = 0; // total samples seen
  sinceInterim = 0;
  chunkFinalSent = false;
  readonly ep = new Endpointer(0.01);
  speakers: number[] = [];
  constructor(readonly index: number) {}
  get now(): number {
    return this.samples;
  }
}

async function streamStt(ws: WebSocket, req: EmuRequest, core: Backend): Promise<void> {
  let p: StreamParams;
  try {
    // the document's ranges and enums first; an unknown parameter is refused under --strict
    const unknown = requestCheckerNow()?.query('GET', '/v1/stt', req.query) ?? [];
    handleUnknown(unknown, 'query parameter', { strict: core.strict, warn: () => {} });
    p = streamParams(req.query);
  } catch (err) {
    if (ws.readyState === 1) ws.send(JSON.stringify({ type: 'error', message: (err as Error).message }));
    ws.close(1008, 'invalid request');
    return;
  }
  const stream = new SttStream(ws, p, core, (event) => req.checkEvent(event));
  ws.on('message', (data, isBinary) => {
    if (isBinary) stream.audio(data as Buffer);
    else stream.message(data.toString());
  });
  // ready: the client must wait for this before it sends audio
  setTimeout(() => stream.start(), core.settings.sttReadyDelayMs ?? 30);
  await new Promise<void>((resolve) => ws.once('close', () => resolve()));
}

const eot = (text: string) => (/[.?!]["')\]]*$/.test(text.trim()) ? 0.92 : text ? 0.3 : 0.5);

/** One streaming STT session: audio in (per channel: endpointing, smart turn, interims), transcript events out. */
class SttStream {
  private readonly chans: ChannelState[];
  private ready = false;
  private done = false;
  private carry = Buffer.alloc(0);
  private readonly frameBytes: number;

  constructor(
    private readonly ws: WebSocket,
    private readonly p: StreamParams,
    private readonly core: Backend,
    /** the document's check of a client event (EmuRequest.checkEvent): the error event's message when refused */
    private readonly checkEvent: (event: unknown) => string | undefined,
  ) {
    this.chans = Array.from({ length: p.channels }, (_, i) => new ChannelState(i));
    this.frameBytes = (p.encoding === 'pcm' ? 2 : 1) * p.channels;
  }

  private send(ev: Record<string, unknown>): void {
    if (this.ws.readyState === 1) this.ws.send(JSON.stringify(ev));
  }

  start(): void {
    this.ready = true;
    this.send({ type: 'transcript.created', id: this.core.uuid() });
  }

  audio(data: Buffer): void {
    if (this.done) return;
    if (!this.ready) {
      this.send({
        type: 'error',
        message: 'audio arrived before transcript.created: wait for it before sending audio',
      });
      this.done = true;
      this.ws.close(1008, 'audio before ready');
      return;
    }
    this.core.emit('stt.frame', { time: performance.now(), bytes: data.length });
    const all = this.carry.length ? Buffer.concat([this.carry, data]) : data;
    const usable = all.length - (all.length % this.frameBytes);
    this.carry = Buffer.from(all.subarray(usable));
    const pcm = decodeSamples(all.subarray(0, usable), this.p.encoding);
    if (this.p.channels === 1) this.feed(this.chans[0]!, pcm);
    else for (const c of this.chans) this.feed(c, extractChannel(pcm, this.p.channels, c.index));
  }

  message(text: string): void {
    if (this.done) return;
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(text) as Record<string, unknown>;
    } catch {
      this.send({ type: 'error', message: 'message is not JSON' });
      return;
    }
    const refused = this.checkEvent(msg);
    if (refused) return this.send({ type: 'error', message: refused });
    if (msg.type === 'audio.done') this.finish();
    else if (msg.type === 'finalize') {
      for (const c of this.chans) {
        if (c.buf.length) this.partial(c, true, true);
        c.ep.reset();
      }
    } else
      this.send({
        type: 'error',
        message: `unknown message type ${JSON.stringify(msg.type)}; expected audio.done or finalize`,
      });
  }

  private options(c: ChannelState): TranscribeOptions {
    const p = this.p;
    return {
      diarize: p.diarize,
      fillerWords: p.fillerWords,
      format: p.format,
      keyterms: p.keyterms,
      vadThreshold: p.vadThreshold,
      speakers: c.speakers,
    };
  }

  private channelField(c: ChannelState): Record<string, number> {
    return this.p.multichannel ? { channel_index: c.index } : {};
  }

  private utterance(c: ChannelState): { text: string; words: Word[] } {
    return transcribe(Buffer.concat(c.buf), this.p.sampleRate, c.bufStart, this.options(c));
  }

  private partial(c: ChannelState, isFinal: boolean, speechFinal: boolean): void {
    const rate = this.p.sampleRate;
    const t = this.utterance(c);
    this.send({
      type: 'transcript.partial',
      text: t.text,
      words: t.words,
      is_final: isFinal,
      speech_final: speechFinal,
      start: round2(c.bufStart),
      duration: round2(c.now / rate - c.bufStart),
      ...this.channelField(c),
      ...(this.p.smartTurn !== undefined ? { end_of_turn_confidence: eot(t.text) } : {}),
    });
    if (isFinal) {
      c.buf = [];
      c.bufStart = c.now / rate;
      c.sinceInterim = 0;
    }
  }

  private feed(c: ChannelState, pcm: Buffer): void {
    const rate = this.p.sampleRate;
    c.buf.push(pcm);
    const frameMs = 10;
    c.samples += pcm.length / 2;
    c.sinceInterim += (pcm.length / 2 / rate) * 1000;
    for (const level of frameLevels(pcm, rate, frameMs)) {
      c.ep.push(level, frameMs);
      if (c.ep.inSpeech) this.boundary(c);
    }
    if (this.p.interim && c.ep.inSpeech && c.sinceInterim >= 500) {
      c.sinceInterim = 0;
      this.partial(c, false, false);
    }
    if (c.now / rate - c.bufStart > MAX_UTTERANCE_SECONDS) this.bound(c, pcm);
  }

  /**
   * The audio held for one utterance is bounded (a session of any length holds at most this much): speech that
   * never pauses is finalized there, and silence before speech keeps only its newest chunk.
   */
  private bound(c: ChannelState, last: Buffer): void {
    if (c.ep.inSpeech) {
      this.partial(c, true, true);
      c.ep.reset();
      return;
    }
    c.buf = [last];
    c.bufStart = c.now / this.p.sampleRate - last.length / 2 / this.p.sampleRate;
  }

  /** After a 10 ms frame in speech: the end of a chunk or of a turn (endpointing, or smart turn when asked). */
  private boundary(c: ChannelState): void {
    const p = this.p;
    const silence = c.ep.silenceMs;
    if (p.smartTurn === undefined) {
      if (silence >= Math.max(p.endpointingMs, VAD_BOUNDARY_MS)) {
        this.partial(c, true, true);
        c.ep.reset();
      }
      return;
    }
    if (silence >= VAD_BOUNDARY_MS && !c.chunkFinalSent) {
      if (eot(this.utterance(c).text) > p.smartTurn) {
        this.partial(c, true, true);
        c.ep.reset();
        c.chunkFinalSent = false;
      } else {
        this.partial(c, true, false);
        c.chunkFinalSent = true;
      }
    } else if (c.chunkFinalSent && silence >= (p.smartTurnTimeoutMs ?? Infinity)) {
      this.partial(c, true, true);
      c.ep.reset();
      c.chunkFinalSent = false;
    } else if (c.chunkFinalSent && silence === 0) c.chunkFinalSent = false;
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    const total = round2(Math.max(...this.chans.map((c) => c.samples)) / this.p.sampleRate);
    for (const c of this.chans) {
      const t = c.buf.length ? this.utterance(c) : { text: '', words: [] };
      this.send({ type: 'transcript.done', text: t.text, words: t.words, duration: total, ...this.channelField(c) });
    }
    this.ws.close(1000, 'done');
  }
}
