import { outputPath } from '../../core/atomic-file.js';
import { textChunks } from '../../core/text-chunks.js';
import { defineCommand } from '../../cmdutil/command.js';
import type { OptionSpec, OptionValues } from '../../core/option-spec.js';
import type { Context } from '../../runtime/context.js';
import type { EncodedOutput } from '../../audio/player.js';
import { IncompleteError, InterruptedError, UsageError } from '../../core/errors.js';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { AUDIO, forceFlags } from '../../cmdutil/flag-sets.js';
import { closeNote } from '../../net/ws.js';
import { fail, integer, number, require } from '../../core/validate.js';
import {
  MP3_BIT_RATES,
  SAMPLE_RATES,
  codecFromPath,
  normalizeCodec,
  unwritableAudioExtension,
  type Codec,
} from 'svc-formats/audio-format';
import { defaultVoice, voiceOption } from '../../endpoints/voices.js';
import {
  BCP47,
  TTS_LANGUAGES,
  TTS_MAX_TEXT,
  listedLanguage,
  TTS_SPEED,
  TTS_DEFAULT_CODEC,
  TtsSocket,
  synthesize,
  type AudioTimestamps,
  type BitRate,
  type SampleRate,
  type TtsRequest,
  type TtsStreamQuery,
} from '../../endpoints/tts.js';

export type TtsOpts = OptionValues<typeof TTS_OPTIONS>;

function languageParser(raw: string, flag: string): string {
  if (!BCP47.test(raw))
    fail(flag, raw, `a BCP-47 language tag (e.g. en, nl, pt-BR) or auto; supported: ${TTS_LANGUAGES.join(', ')}`);
  return listedLanguage(raw) ?? raw;
}

const codecParser = (raw: string, flag: string): Codec =>
  normalizeCodec(raw) ?? fail(flag, raw, 'one of mp3, wav, pcm, mulaw (or ulaw), alaw');
const rateParser =
  (list: readonly number[]) =>
  (raw: string, flag: string): number => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !list.includes(n)) fail(flag, raw, `one of ${list.join(', ')}`);
    return n;
  };

/** Flags shared by `tts say` and `tts stream`. */
export const TTS_OPTIONS = [
  voiceOption(
    '--voice <id>',
    (voices) => `voice id: built-in (${voices.join(', ')}, default ${defaultVoice()}) or a custom voice id`,
  ),
  {
    flags: '--language <code>',
    description:
      `BCP-47 language tag or auto (default), case-insensitive; supported: ${TTS_LANGUAGES.join(', ')} (others ` +
      `may work)`,
    default: 'auto',
    parse: languageParser,
  },
  {
    flags: '--codec <codec>',
    description:
      "mp3, wav, pcm (s16le), mulaw (ulaw), alaw (default: from -o FILE's extension, else mp3; pcm for the speaker)",
    parse: codecParser,
  },
  {
    flags: '--sample-rate <hz>',
    description: `${SAMPLE_RATES.join(', ')} (default 24000)`,
    parse: rateParser(SAMPLE_RATES),
  },
  {
    flags: '--bit-rate <bps>',
    description: `MP3 only: ${MP3_BIT_RATES.join(', ')} (default 128000)`,
    parse: rateParser(MP3_BIT_RATES),
  },
  {
    flags: '--speed <x>',
    description: `speaking rate ${TTS_SPEED.min} to ${TTS_SPEED.max} (default 1.0)`,
    parse: number({ min: TTS_SPEED.min, max: TTS_SPEED.max }),
  },
  {
    flags: '--optimize-streaming-latency <n>',
    description: '0 best quality, 1 smaller first chunk (default 0)',
    parse: integer({ min: 0, max: 1 }),
  },
  { flags: '--text-normalization', description: 'speak written forms (numbers, symbols) as words' },
  {
    flags: '--timestamps [file]',
    description: 'character timings: JSON to FILE, else a line per character on stderr',
    parse: outputPath(),
  },
  {
    flags: '-o, --output <file|->',
    description:
      'write the audio to FILE or stdout (-) instead of playing it; default: speaker on a terminal, stdout in a pipe',
    parse: outputPath(),
  },
  { flags: '--play', description: 'play on the speaker even when stdout is not a terminal' },
  ...forceFlags('an existing -o or --timestamps file'),
  AUDIO.outputDevice,
] as const satisfies readonly OptionSpec[];

export interface Destination {
  dest: 'speaker' | '-' | string;
  codec: Codec;
  sampleRate: number;
}

/** Where the audio goes and in which codec; checks that span flags. */
export function destination(ctx: Context, opts: TtsOpts): Destination {
  require(!(opts.play && opts.output !== undefined), '--play', true, 'not together with -o/--output');
  const dest = opts.play ? 'speaker' : (opts.output ?? (ctx.out.stdoutIsTTY ? 'speaker' : '-'));
  if (dest === '-') ctx.out.bytesToStdout();
  let codec = opts.codec;
  if (!codec && dest !== 'speaker' && dest !== '-') {
    const ext = unwritableAudioExtension(dest);
    require(ext ===
      undefined, '-o', dest, `a name svc can write: .mp3, .wav, .pcm/.raw, .ulaw, .alaw (or say the codec with ` +
      `--codec; ${ext} is ` +
      `not a TTS codec)`);
  }
  if (!codec)
    codec = dest === 'speaker' ? 'pcm' : dest === '-' ? TTS_DEFAULT_CODEC : (codecFromPath(dest) ?? TTS_DEFAULT_CODEC);
  if (!listedLanguage(opts.language))
    ctx.out.info(
      `note: --language ${opts.language} is not one of the supported languages ` +
        `(${TTS_LANGUAGES.join(', ')}); the service may speak it with varying accuracy`,
    );
  require(opts.bitRate === undefined ||
    codec === 'mp3', '--bit-rate', opts.bitRate, `only with --codec mp3 (the codec is ${codec})`);
  return { dest, codec, sampleRate: opts.sampleRate ?? 24000 };
}

export function streamQuery(opts: TtsOpts, d: Destination): TtsStreamQuery {
  const q: TtsStreamQuery = { language: opts.language, codec: d.codec };
  if (opts.voice !== undefined) q.voice = opts.voice;
  if (opts.sampleRate !== undefined) q.sample_rate = opts.sampleRate;
  if (opts.bitRate !== undefined) q.bit_rate = opts.bitRate;
  if (opts.optimizeStreamingLatency !== undefined) q.optimize_streaming_latency = opts.optimizeStreamingLatency;
  if (opts.speed !== undefined) q.speed = opts.speed;
  if (opts.textNormalization) q.text_normalization = true;
  if (opts.timestamps) q.with_timestamps = true;
  return q;
}

/** Collects character timings (per delta, times from the utterance start) and writes them at the end. */
export class Timings {
  chars: string[] = [];
  times: [number, number][] = [];
  private offset = 0;
  private lastEnd = 0;
  add(ts: AudioTimestamps | undefined): void {
    if (!ts?.graph_chars) return;
    ts.graph_chars.forEach((c, i) => {
      const [a, b] = ts.graph_times?.[i] ?? [0, 0];
      this.chars.push(c);
      this.times.push([round2(a + this.offset), round2(b + this.offset)]);
      this.lastEnd = Math.max(this.lastEnd, b + this.offset);
    });
  }
  /** the next utterance's times continue after this one's audio */
  nextUtterance(seconds: number): void {
    this.offset = Math.max(this.lastEnd, seconds);
  }
  async write(ctx: Context, target: string | boolean | undefined, force?: boolean): Promise<void> {
    if (!target) return;
    if (typeof target === 'string') {
      const json = `${JSON.stringify({ graph_chars: this.chars, graph_times: this.times })}\n`;
      await writeFileAtomic(target, json, { replace: !!force });
      ctx.out.info(`character timings: ${target}`);
      return;
    }
    for (let i = 0; i < this.chars.length; i++) {
      const [a, b] = this.times[i]!;
      ctx.out.stderrWrite(`${a.toFixed(2)}\t${b.toFixed(2)}\t${JSON.stringify(this.chars[i])}\n`);
    }
  }
}

const round2 = (v: number) => Math.round(v * 100) / 100;

/** Stop cleanly on Ctrl-C: close the socket / body so the loops end and the file is finished. */
export function onInterrupt(ctx: Context, fn: () => void): void {
  if (ctx.signal.aborted) fn();
  else ctx.signal.addEventListener('abort', fn, { once: true });
}

export default defineCommand({
  description:
    'Streams over the /v1/tts WebSocket by default (audio starts while the rest is synthesized); --rest uses ' +
    'the one-shot POST /v1/tts. ' +
    'Plays on the speaker when stdout is a terminal and no -o is given; in a pipe the audio bytes go to stdout. ' +
    'Inline speech tags ([pause], [laugh], …) and wrapping tags (<whisper>…</whisper>) pass through to the service.',
  args: [
    {
      name: 'text',
      description:
        `the text (at most ${TTS_MAX_TEXT} characters; several words are joined with spaces); - or ` +
        `none reads stdin`,
      variadic: true,
    },
  ],
  options: [
    ...TTS_OPTIONS,
    { flags: '--rest', description: 'one-shot POST /v1/tts instead of the streaming WebSocket' },
  ],
  examples: [
    'svc tts say "Hello there"',
    'svc tts say "Hello" -o hello.wav',
    'echo "Hi" | svc tts say --codec mulaw --sample-rate 8000 > hi.ulaw',
    'svc tts say "Hi" --timestamps times.json -o hi.mp3',
  ],
  async run(ctx, [words], opts) {
    const text = await textToSpeak(ctx, words as string[]);
    const d = destination(ctx, opts);
    if (d.dest === '-' && ctx.out.stdoutIsTTY)
      throw new UsageError('-o -: will not write audio bytes to a terminal; redirect stdout or give -o FILE');
    const timings = new Timings();
    const spoken = opts.rest
      ? await speakOnce(ctx, text, opts, d, timings)
      : await speakStreamed(ctx, text, opts, d, timings);
    await timings.write(ctx, opts.timestamps, opts.force);
    report(ctx, d, spoken.bytes, spoken.seconds);
    return 0;
  },
});

/** TEXT (several words joined), or stdin for `-` or none; checked against the length limit. */
async function textToSpeak(ctx: Context, words: string[]): Promise<string> {
  const textArg = words.length ? words.join(' ') : undefined;
  let text: string;
  if (textArg === undefined || textArg === '-') {
    if (ctx.streams.stdin.isTTY && textArg === undefined)
      throw new UsageError('no text: give TEXT, or pipe it on stdin (svc tts say -)');
    text = (await ctx.readStdin()).replace(/\s+$/, '');
  } else text = textArg;
  require(text.trim().length > 0, 'TEXT', text, 'some text to speak');
  require([...text].length <=
    TTS_MAX_TEXT, 'TEXT', `${[...text].length} characters`, `at most ${TTS_MAX_TEXT} characters`);
  return text;
}

/** The body of the one-shot POST /v1/tts (--rest). */
function restRequest(text: string, opts: TtsOpts, d: Destination): TtsRequest {
  const body: TtsRequest = { text, language: opts.language, output_format: { codec: d.codec } };
  if (opts.voice !== undefined) body.voice_id = opts.voice;
  if (opts.sampleRate !== undefined) body.output_format!.sample_rate = opts.sampleRate as SampleRate;
  if (opts.bitRate !== undefined) body.output_format!.bit_rate = opts.bitRate as BitRate;
  if (opts.speed !== undefined) body.speed = opts.speed;
  if (opts.optimizeStreamingLatency !== undefined)
    body.optimize_streaming_latency = opts.optimizeStreamingLatency as TtsRequest['optimize_streaming_latency'];
  if (opts.textNormalization) body.text_normalization = true;
  if (opts.timestamps) body.with_timestamps = true;
  return body;
}

/** The speaker, the file or stdout, taking audio in the destination's codec. */
export async function openOutput(ctx: Context, opts: TtsOpts, d: Destination) {
  const { EncodedOutput } = await import('../../audio/player.js');
  return EncodedOutput.open({
    dest: d.dest,
    codec: d.codec,
    format: { sampleRate: d.sampleRate, channels: 1 },
    device: opts.outputDevice,
    env: ctx.env,
    stdout: ctx.out,
    replace: opts.force,
  });
}

interface Spoken {
  bytes: number;
  seconds: number;
}

/** --rest: one POST /v1/tts, its audio written to the output. */
async function speakOnce(ctx: Context, text: string, opts: TtsOpts, d: Destination, timings: Timings): Promise<Spoken> {
  const body = restRequest(text, opts, d);
  const http = await ctx.http();
  const out = await openOutput(ctx, opts, d);
  let finished = false;
  let r: Awaited<ReturnType<typeof synthesize>>;
  try {
    r = await synthesize(http, body, ctx.signal);
    if (r.codec && r.codec !== d.codec) ctx.out.warn(`the service answered ${r.codec}, not ${d.codec}`);
    if (r.kind === 'json') {
      await out.write(r.audio);
      timings.add(r.response.audio_timestamps);
    } else {
      for await (const chunk of r.body) await out.write(chunk);
    }
    await out.end();
    finished = true;
  } finally {
    // a failed or interrupted request leaves an existing -o FILE as it was
    if (!finished) await out.abort();
  }
  return { bytes: out.bytesIn, seconds: r.kind === 'json' ? r.response.duration : out.seconds };
}

/** The /v1/tts WebSocket: the text sent in pieces, the audio written as it comes, to audio.done. */
async function speakStreamed(
  ctx: Context,
  text: string,
  opts: TtsOpts,
  d: Destination,
  timings: Timings,
): Promise<Spoken> {
  const out = await openOutput(ctx, opts, d);
  await writeAudio(ctx, out, async () => {
    const sock = await TtsSocket.open((p, q) => ctx.ws(p, q), streamQuery(opts, d));
    onInterrupt(ctx, () => sock.close());
    // long texts go in pieces, as a client streaming text would send them
    for (const piece of textChunks(text, 2000)) sock.sendText(piece);
    sock.done();
    let complete = false;
    for (;;) {
      const ev = await sock.next();
      if (!ev) break;
      if (ev.type === 'audio.delta') {
        await out.write(ev.audio);
        timings.add(ev.audio_timestamps);
      } else if (ev.type === 'audio.done') {
        complete = true;
        break;
      }
    }
    sock.close();
    if (ctx.signal.aborted) throw new InterruptedError();
    if (!complete)
      throw new IncompleteError(
        `the service closed the connection before audio.done${closeNote(sock.conn)}: the audio is incomplete`,
      );
  });
  return { bytes: out.bytesIn, seconds: out.seconds };
}

/**
 * Run `speak`, which writes the audio to `out`, and finish the output. After Ctrl-C the error is an
 * InterruptedError; on any failure the output is abandoned (an existing -o FILE stays as it was). `cleanup` runs
 * either way, before that.
 */
export async function writeAudio(
  ctx: Context,
  out: EncodedOutput,
  speak: () => Promise<void>,
  cleanup?: () => void,
): Promise<void> {
  let finished = false;
  try {
    await speak();
    await out.end();
    finished = true;
  } catch (err) {
    if (ctx.signal.aborted) throw new InterruptedError();
    throw err;
  } finally {
    cleanup?.();
    if (!finished) await out.abort();
  }
}

function report(ctx: Context, d: Destination, bytes: number, seconds: number): void {
  const what = `${d.codec}${seconds ? `, ${seconds.toFixed(2)} s` : ''}, ${bytes} bytes`;
  if (ctx.out.json && d.dest !== '-')
    ctx.out.printJson({
      output: d.dest,
      codec: d.codec,
      bytes,
      duration: seconds ? Math.round(seconds * 100) / 100 : undefined,
    });
  else if (d.dest === 'speaker') ctx.out.info(`played ${what}`);
  else if (d.dest !== '-') ctx.out.info(`wrote ${d.dest} (${what})`);
}
