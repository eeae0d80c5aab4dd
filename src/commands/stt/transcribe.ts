import { open, stat } from 'node:fs/promises';
import { defineCommand } from '../../cmdutil/command.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../core/errors.js';
import { childEnvironment } from '../../core/environment.js';
import { fail, integer, oneOf, require } from '../../core/validate.js';
import { SAMPLE_RATES, codecFromPath } from 'svc-formats/audio-format';
import {
  STT_AUDIO_FORMATS,
  STT_FORMAT_LANGUAGES,
  STT_MAX_FILE,
  STT_MAX_FILE_SAID,
  STT_RAW_FORMATS,
  transcribe,
  type SttForm,
  type SttResponse,
  type SttWord,
  type TranscribeInput,
} from '../../endpoints/stt.js';
import { parseWavHeader } from 'svc-formats/audio-codecs';
import { cues, formatCue, subtitleHeader, type SubtitleKind } from '../../cmdutil/subtitles.js';
import { FFMPEG_HINT, ffmpegAvailable } from '../../audio/ffmpeg.js';
import { SNIFF_BYTES, checkAudioHead, sniffAudio } from '../../audio/sniff.js';

export const rateParser = (raw: string, flag: string): number => {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !(SAMPLE_RATES as readonly number[]).includes(n))
    fail(flag, raw, `one of ${SAMPLE_RATES.join(', ')}`);
  return n;
};

/** `--format` needs a language it is available for. */
export function checkFormatLanguage(format: boolean | undefined, language: string | undefined): void {
  if (!format) return;
  require(language !== undefined, '--format', true, 'only together with --language');
  const base = language!.toLowerCase().split('-')[0]!;
  require((STT_FORMAT_LANGUAGES as readonly string[]).includes(
    base,
  ), '--language', language, `with --format one of ${STT_FORMAT_LANGUAGES.join(', ')}`);
}

const RAW = STT_RAW_FORMATS as readonly string[];

export default defineCommand({
  description:
    `Uploads FILE (streamed from disk, at most ${STT_MAX_FILE / 2 ** 20} MB) or stdin (-), or has the service fetch ` +
    'URL. The container is recognised by its first ' +
    'bytes: WAV, MP3, OGG, Opus, FLAC, AAC, MP4, M4A and MKV go up as they are; other formats (AIFF, CAF, ' +
    'AMR, WMA) are converted to WAV ' +
    'with ffmpeg when it is installed; text is refused. Raw pcm, mulaw and alaw need --audio-format and ' +
    '--sample-rate (the format is taken ' +
    'from a .pcm/.raw/.ulaw/.alaw extension). ' +
    'Prints the text; --words a table of word timings; --srt / --vtt subtitles; --json the reply as sent.',
  args: [{ name: 'source', description: 'audio file path, - for stdin, or http(s) URL', required: true }],
  options: [
    {
      flags: '--language <code>',
      description: 'language code (e.g. en, fr, de, ja); with --format enables inverse text normalization',
    },
    {
      flags: '--format',
      description: `inverse text normalization (needs --language: ${STT_FORMAT_LANGUAGES.join(', ')})`,
    },
    { flags: '--diarize', description: 'tell speakers apart (words carry a speaker number)' },
    { flags: '--multichannel', description: 'transcribe each channel on its own' },
    {
      flags: '--channels <n>',
      description: 'channel count of multichannel raw audio, 2 to 8',
      parse: integer({ min: 2, max: 8 }),
    },
    {
      flags: '--audio-format <fmt>',
      description: `${STT_AUDIO_FORMATS.join(', ')} (only needed for raw pcm, mulaw, alaw)`,
      parse: oneOf(STT_AUDIO_FORMATS, { caseInsensitive: true }),
    },
    { flags: '--sample-rate <hz>', description: `raw audio only: ${SAMPLE_RATES.join(', ')}`, parse: rateParser },
    { flags: '--words', description: 'print every word with its start, end, confidence (and speaker)' },
    { flags: '--srt', description: 'print SubRip subtitles' },
    { flags: '--vtt', description: 'print WebVTT subtitles' },
  ],
  examples: [
    'svc stt transcribe meeting.mp3',
    'svc tts say "hello" | svc stt transcribe -',
    'svc stt transcribe call.wav --diarize --words',
    'svc stt transcribe talk.wav --srt > talk.srt',
    'svc stt transcribe line.ulaw --sample-rate 8000',
    'svc stt transcribe https://example.com/a.mp3 --language en --format',
  ],
  async run(ctx, [source], opts) {
    require(!(opts.srt && opts.vtt), '--srt', true, 'not together with --vtt (choose one)');
    require(!(opts.words && (opts.srt || opts.vtt)), '--words', true, 'not together with --srt or --vtt');
    checkFormatLanguage(opts.format, opts.language);
    require(opts.channels === undefined ||
      !!opts.multichannel, '--channels', opts.channels, 'only with --multichannel');
    const isUrl = /^https?:\/\//i.test(source);
    let input: TranscribeInput;
    let audioFormat = opts.audioFormat?.toLowerCase();
    if (isUrl) input = { url: source };
    else {
      const local = await localInput(ctx, source, audioFormat);
      input = local.input;
      audioFormat = local.audioFormat;
    }
    const raw = audioFormat !== undefined && RAW.includes(audioFormat);
    require(!raw ||
      opts.sampleRate !== undefined, '--sample-rate', '(missing)', `required for raw ${audioFormat} audio: one of ` +
      `${SAMPLE_RATES.join(', ')}`);
    require(!(raw && opts.multichannel) ||
      opts.channels !== undefined, '--channels', '(missing)', 'required for multichannel raw audio: 2 to 8');
    if (opts.sampleRate !== undefined && !raw)
      ctx.out.warn('--sample-rate is ignored for containers (the file says its rate)');

    const form: SttForm = {};
    if (audioFormat) form.audio_format = audioFormat;
    if (raw) form.sample_rate = opts.sampleRate;
    if (opts.language) form.language = opts.language;
    if (opts.format) form.format = true;
    if (opts.multichannel) form.multichannel = true;
    if (opts.channels !== undefined) form.channels = opts.channels;
    if (opts.diarize) form.diarize = true;

    const http = await ctx.http();
    const spin = await ctx.out.spinner(isUrl ? 'transcribing' : `uploading and transcribing ${source}`);
    let res: SttResponse;
    try {
      res = await transcribe(http, input, form, ctx.signal);
    } finally {
      spin.stop();
    }
    if (ctx.out.json) ctx.out.printJson(res);
    else if (opts.srt || opts.vtt) printSubtitles(ctx, res, opts.vtt ? 'vtt' : 'srt');
    else if (opts.words) await printWords(ctx, res);
    else printText(ctx, res, !!opts.diarize);
    return 0;
  },
});

/**
 * A local FILE or `-` (stdin), checked before anything is sent: its size, and what it holds. WAV, MP3 and the
 * containers the API lists (FLAC, Ogg, Opus, AAC, MP4/M4A, Matroska) go up as they are — the service decodes them;
 * other containers (AIFF, CAF, AMR, WMA) are converted to WAV by ffmpeg when it is on PATH, else refused (exit 2);
 * text is refused; headerless audio needs --audio-format (or a .pcm/.raw/.ulaw/.alaw name) and --sample-rate.
 */
async function localInput(
  ctx: Context,
  source: string,
  given: string | undefined,
): Promise<{ input: TranscribeInput; audioFormat?: string }> {
  const label = source === '-' ? 'stdin' : source;
  let head: Buffer;
  let input: TranscribeInput;
  if (source === '-') {
    if (ctx.streams.stdin.isTTY)
      throw new UsageError(
        '-: stdin is a terminal; pipe audio in (svc tts say hi | svc stt transcribe -) or give FILE',
      );
    const data = await readAllLimited(ctx.streams.stdin, STT_MAX_FILE);
    require(data !== undefined, 'FILE', 'stdin', `at most ${STT_MAX_FILE_SAID}`);
    require(data!.length > 0, 'FILE', 'stdin', 'audio on stdin (it was empty)');
    head = data!.subarray(0, SNIFF_BYTES);
    input = { data: data!, filename: 'stdin' };
  } else {
    const st = await stat(source).catch(() => undefined);
    if (!st) throw new UsageError(`${source}: no such file (give an audio file, - for stdin, or an http(s) URL)`);
    if (st.isDirectory())
      throw new UsageError(`${source} is a directory (give an audio file, - for stdin, or an http(s) URL)`);
    if (!st.isFile())
      throw new UsageError(
        `${source} is not a regular file (give an audio file, or pipe it: svc stt transcribe - < ${source})`,
      );
    require(st.size <= STT_MAX_FILE, 'FILE', `${source} (${st.size} bytes)`, `at most ${STT_MAX_FILE_SAID}`);
    require(st.size > 0, 'FILE', source, 'a file with audio in it (this one is empty)');
    head = await readHead(source, SNIFF_BYTES);
    input = { path: source, size: st.size };
  }
  checkAudioHead(head, label, 'FILE');
  const sniffed = sniffAudio(head);
  if (given !== undefined) {
    // the API documents audio_format for headerless audio only: a container says what it is itself
    if (sniffed.kind !== 'raw' && sniffed.kind !== 'text')
      throw new UsageError(
        `--audio-format: ${given} is not allowed: ${label} is ${sniffed.name} audio (leave --audio-format ` +
          `out for containers; it is for headerless pcm, mulaw and alaw)`,
      );
    return { input, audioFormat: given };
  }
  switch (sniffed.kind) {
    case 'text':
      throw new UsageError(`${label} holds text, not audio`);
    case 'wav':
    case 'mp3':
      return { input };
    case 'container':
      if (sniffed.upload) return { input };
      if (!ffmpegAvailable(ctx.env))
        throw new UsageError(`${label} is ${sniffed.name} audio, which the service does not read; ${FFMPEG_HINT}`);
      return {
        input: { data: await ffmpegToWav(input, label, ctx.env), filename: `${source === '-' ? 'stdin' : source}.wav` },
      };
    case 'raw': {
      const byExt = source === '-' ? undefined : codecFromPath(source);
      if (byExt === 'pcm' || byExt === 'mulaw' || byExt === 'alaw') return { input, audioFormat: byExt };
      throw new UsageError(
        `${label}: not a known audio container (WAV, MP3, FLAC, Ogg, M4A, …); for headerless audio give ` +
          `--audio-format (${STT_RAW_FORMATS.join(', ')}) and --sample-rate`,
      );
    }
  }
}

async function readHead(path: string, n: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const b = Buffer.alloc(n);
    const { bytesRead } = await fh.read(b, 0, n, 0);
    return b.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** All of a stream, or undefined once it passes `limit` bytes. */
async function readAllLimited(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer | undefined> {
  const parts: Buffer[] = [];
  let len = 0;
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    len += b.length;
    if (len > limit) return undefined;
    parts.push(b);
  }
  return Buffer.concat(parts);
}

/** A container the service does not list, as a 16-bit WAV (channels and rate kept) made by ffmpeg. */
async function ffmpegToWav(input: TranscribeInput, label: string, env: NodeJS.ProcessEnv): Promise<Buffer> {
  const { execa } = await import('execa');
  const fromPath = 'path' in input;
  const r = await execa(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-i',
      fromPath ? input.path : 'pipe:0',
      '-vn',
      '-f',
      'wav',
      '-acodec',
      'pcm_s16le',
      'pipe:1',
    ],
    {
      input: 'data' in input ? input.data : undefined,
      stdin: fromPath ? 'ignore' : undefined,
      encoding: 'buffer',
      reject: false,
      // without svc's secrets: ffmpeg parses the user's file (core/environment.ts)
      env: childEnvironment(env),
      extendEnv: false,
      maxBuffer: STT_MAX_FILE,
    },
  );
  if (r.exitCode !== 0)
    throw new UsageError(
      `ffmpeg could not convert ${label}: ${
        Buffer.from(r.stderr as Uint8Array)
          .toString()
          .trim()
          .split('\n')
          .pop() ?? `exit status ${r.exitCode}`
      }`,
    );
  const wav = Buffer.from(r.stdout as Uint8Array);
  // written to a pipe, the header has no sizes: put them in
  const info = parseWavHeader(wav);
  if (info) {
    wav.writeUInt32LE(wav.length - 8, 4);
    wav.writeUInt32LE(wav.length - info.dataOffset, info.dataOffset - 4);
  }
  return wav;
}

/** Consecutive words of one speaker as one line. */
function speakerLines(words: SttWord[]): { speaker?: number; text: string }[] {
  const lines: { speaker?: number; text: string }[] = [];
  for (const w of words) {
    const last = lines[lines.length - 1];
    if (last && last.speaker === w.speaker) last.text += ` ${w.text}`;
    else lines.push({ speaker: w.speaker, text: w.text });
  }
  return lines;
}

function printText(ctx: Context, res: SttResponse, diarize: boolean): void {
  const c = ctx.out.c;
  if (res.channels?.length) {
    for (const ch of res.channels) {
      if (diarize && ch.words?.some((w) => w.speaker !== undefined)) {
        for (const l of speakerLines(ch.words))
          ctx.out.line(`${c.dim(`[channel ${ch.index}] [speaker ${l.speaker}]`)} ${l.text}`);
      } else ctx.out.line(`${c.dim(`[channel ${ch.index}]`)} ${ch.text}`);
    }
    return;
  }
  if (diarize && res.words?.some((w) => w.speaker !== undefined)) {
    for (const l of speakerLines(res.words)) ctx.out.line(`${c.dim(`[speaker ${l.speaker}]`)} ${l.text}`);
    return;
  }
  ctx.out.line(res.text);
}

async function printWords(ctx: Context, res: SttResponse): Promise<void> {
  const rows = res.channels?.length
    ? res.channels.flatMap((ch) => (ch.words ?? []).map((w) => ({ ...w, channel: ch.index })))
    : (res.words ?? []).map((w) => ({ ...w, channel: undefined as number | undefined }));
  const hasSpeaker = rows.some((w) => w.speaker !== undefined);
  const hasChannel = rows.some((w) => w.channel !== undefined);
  await ctx.out.table(
    rows,
    [
      { header: 'START', get: (w) => w.start.toFixed(2), align: 'right' },
      { header: 'END', get: (w) => w.end.toFixed(2), align: 'right' },
      { header: 'CONF', get: (w) => (w.confidence === undefined ? '' : w.confidence.toFixed(2)), align: 'right' },
      ...(hasChannel ? [{ header: 'CHANNEL', get: (w: (typeof rows)[number]) => w.channel }] : []),
      ...(hasSpeaker ? [{ header: 'SPEAKER', get: (w: (typeof rows)[number]) => w.speaker }] : []),
      { header: 'WORD', get: (w) => w.text },
    ],
    { emptyMessage: 'no words' },
  );
}

function printSubtitles(ctx: Context, res: SttResponse, kind: SubtitleKind): void {
  const words = res.words ?? res.channels?.flatMap((c) => c.words ?? []).sort((a, b) => a.start - b.start) ?? [];
  const list = cues(words);
  ctx.out.write(subtitleHeader(kind));
  list.forEach((c, i) => ctx.out.write(formatCue(kind, i + 1, c)));
  if (!list.length) ctx.out.info('no words: empty subtitles');
}
