import type { OptionSpec, OptionValues } from '../../core/option-spec.js';
import { defineCommand } from '../../cmdutil/command.js';
import type { Context } from '../../runtime/context.js';
import { IncompleteError, InterruptedError, NetworkError, UsageError } from '../../core/errors.js';
import { AUDIO, FLAG_GROUPS, forceFlags } from '../../cmdutil/flag-sets.js';
import { closeNote } from '../../net/ws.js';
import { integer, maxLength, number, oneOf, repeatable, require } from '../../core/validate.js';
import { SAMPLE_RATES, type Encoding } from 'svc-formats/audio-format';
import type { AudioSource } from '../../audio/source.js';
import {
  STT_ENCODINGS,
  STT_MODELS,
  STT_MAX_KEYTERMS,
  STT_MAX_KEYTERM_CHARS,
  SttSocket,
  type SttDone,
  type SttPartial,
  type SttStreamQuery,
  type SttWord,
} from '../../endpoints/stt.js';
import { checkFormatLanguage, rateParser } from './transcribe.js';
import { outputPath, type AtomicFile } from '../../core/atomic-file.js';
import { cues, formatCue, subtitleHeader, type SubtitleKind } from '../../cmdutil/subtitles.js';

const O = FLAG_GROUPS.output;

type Opts = OptionValues<typeof OPTIONS>;

const FRAME_MS = 100;

const OPTIONS = [
  {
    flags: '--input <mic|file|->',
    description: 'mic, an audio file, or - for stdin (default: mic on a terminal, else stdin)',
  },
  AUDIO.inputDevice,
  {
    flags: '--encoding <enc>',
    description:
      'audio sent: pcm (s16le), mulaw, alaw, or opus (48 kHz mono packets, encoded with ffmpeg; ' +
      '--sample-rate does not apply)',
    default: 'pcm',
    parse: oneOf(STT_ENCODINGS, { caseInsensitive: true }),
  },
  { flags: '--sample-rate <hz>', description: `${SAMPLE_RATES.join(', ')}`, default: 16000, parse: rateParser },
  {
    flags: '--model <model>',
    description: `transcription model: ${STT_MODELS.join(', ')} (the service default)`,
    parse: oneOf(STT_MODELS),
    choices: STT_MODELS,
    group: FLAG_GROUPS.model,
  },
  { flags: '--no-realtime', description: 'send a file or stdin as fast as possible instead of at real time' },
  { flags: '--interim', description: 'interim results (about every 500 ms)' },
  {
    flags: '--endpointing <ms>',
    description: 'silence before an utterance ends, 0 to 5000 ms',
    parse: integer({ min: 0, max: 5000 }),
  },
  { flags: '--language <code>', description: 'language code; biases recognition, selects --format rules' },
  { flags: '--format', description: 'inverse text normalization (needs --language)' },
  { flags: '--diarize', description: 'words carry a speaker number' },
  {
    flags: '--keyterm <term>',
    description: `bias term, repeatable (at most ${STT_MAX_KEYTERMS}, each ≤ ${STT_MAX_KEYTERM_CHARS} characters)`,
    parse: repeatable(maxLength(STT_MAX_KEYTERM_CHARS), { max: STT_MAX_KEYTERMS }),
  },
  { flags: '--filler-words', description: 'keep filler words (um, uh)' },
  {
    flags: '--smart-turn <p>',
    description: 'end-of-turn probability threshold 0 to 1',
    parse: number({ min: 0, max: 1 }),
  },
  {
    flags: '--smart-turn-timeout <ms>',
    description: 'silence that forces the end of a turn, 1 to 5000 ms (only with --smart-turn)',
    parse: integer({ min: 1, max: 5000 }),
  },
  {
    flags: '--vad-threshold <p>',
    description: 'speech-probability gate 0 to 1 (0 disables it)',
    parse: number({ min: 0, max: 1 }),
  },
  { flags: '--multichannel', description: 'transcribe each channel on its own (needs --channels)' },
  {
    flags: '--channels <n>',
    description: 'channels of the audio with --multichannel, 2 to 8',
    parse: integer({ min: 2, max: 8 }),
  },
  { flags: '--srt', description: 'live SubRip subtitles: a cue per final segment as it arrives', group: O },
  { flags: '--vtt', description: 'live WebVTT subtitles: a cue per final segment as it arrives', group: O },
  {
    flags: '-o, --output <file>',
    description: 'write the --srt/--vtt subtitles to FILE (atomically, at the end); stdout shows the transcript',
    parse: outputPath(),
    group: O,
  },
  ...forceFlags('an existing -o file'),
] as const satisfies readonly OptionSpec[];

export default defineCommand({
  description:
    'Streams audio over the /v1/stt WebSocket in 100 ms frames at real time, after the service says it is ' +
    'ready. On a terminal a live ' +
    'line follows the interim results and is fixed when the utterance ends; in a pipe one line per finished ' +
    'utterance; --json prints ' +
    'every event. WAV and MP3 input is converted to --encoding/--sample-rate; headerless input is read as ' +
    '--encoding at --sample-rate. ' +
    'Ctrl-C or the end of the input sends audio.done and prints what the final transcript adds. --srt / --vtt ' +
    "write subtitles instead, a cue as each final segment arrives (its words' timings): on stdout, or with " +
    '-o FILE into FILE (put in place when the transcription ends, Ctrl-C included) while stdout shows the ' +
    'transcript.',
  options: OPTIONS,
  examples: [
    'svc stt listen',
    'svc stt listen --input meeting.wav --interim',
    'arecord -f S16_LE -r 16000 | svc stt listen --input -',
    'svc stt listen --input call.ulaw --encoding mulaw --sample-rate 8000 --json',
    'svc stt listen --vtt -o meeting.vtt',
  ],
  async run(ctx, _args, opts) {
    checkListenFlags(ctx, opts);
    const input = opts.input ?? (ctx.streams.stdin.isTTY ? 'mic' : '-');
    if (input === '-' && ctx.streams.stdin.isTTY)
      throw new UsageError('--input -: stdin is a terminal; pipe audio in, or use --input mic or --input FILE');
    const encoding = opts.encoding as Encoding | 'opus';
    const channels = opts.multichannel ? opts.channels! : 1;
    if (encoding === 'opus') {
      const { ffmpegAvailable } = await import('../../audio/ffmpeg.js');
      require(ffmpegAvailable(
        ctx.env,
      ), '--encoding', 'opus', 'pcm, mulaw or alaw here: svc encodes Opus with ffmpeg (libopus), which is not ' +
        'installed (apt-get ' +
        'install ffmpeg)');
    }

    const { openSource } = await import('../../audio/source.js');
    // the source first: a missing microphone or file is reported before anything is sent
    const source = await openSource(input, {
      sampleRate: encoding === 'opus' ? (await import('../../audio/opus.js')).OPUS_RATE : opts.sampleRate,
      channels,
      // headerless input is read as --encoding at --sample-rate (Opus is only what goes out)
      encoding: encoding === 'opus' ? 'pcm' : encoding,
      inputSampleRate: encoding === 'opus' ? opts.sampleRate : undefined,
      realtime: opts.realtime !== false,
      device: opts.inputDevice,
      stdin: ctx.streams.stdin,
      env: ctx.env,
      // Ctrl-C (or SIGTERM) while the microphone opens stops its capture program too: svc's exit would orphan it
      signal: ctx.signal,
    });
    let sock: SttSocket;
    let view: View | undefined;
    try {
      view = await makeView(ctx, opts);
      sock = await SttSocket.open((p, q) => ctx.ws(p, q), streamQuery(opts, channels));
    } catch (err) {
      await source.close();
      await view?.abort();
      throw err;
    }
    return transcribeLive(ctx, new LiveTranscription(ctx, sock, source, encoding, view), view);
  },
});

/** Run it; the view's files are put in place when it ends or is interrupted (Ctrl-C keeps what was received). */
async function transcribeLive(ctx: Context, live: LiveTranscription, view: View): Promise<number> {
  let ok = false;
  try {
    const code = await live.run();
    ok = true;
    return code;
  } catch (err) {
    // Ctrl-C keeps what was received; SIGTERM or SIGHUP (ctx.signal without Ctrl-C) is a failure: files untouched
    ok = err instanceof InterruptedError && live.byCtrlC;
    throw err;
  } finally {
    if (ok) await view.finish();
    else await view.abort();
  }
}

/** Checks that span flags (exit 2, nothing sent). */
function checkListenFlags(ctx: Context, opts: Opts): void {
  require(!(opts.srt && opts.vtt), '--srt', true, 'not together with --vtt (choose one)');
  require(!(ctx.out.json && (opts.srt || opts.vtt)), '--json', true, 'not together with --srt or --vtt');
  require(opts.output === undefined || !!(opts.srt || opts.vtt), '--output', opts.output, 'only with --srt or --vtt');
  require(opts.smartTurnTimeout === undefined ||
    opts.smartTurn !== undefined, '--smart-turn-timeout', opts.smartTurnTimeout, 'only together with --smart-turn');
  checkFormatLanguage(opts.format, opts.language);
  require(!opts.multichannel || opts.channels !== undefined, '--multichannel', true, 'needs --channels (2 to 8)');
  require(opts.channels === undefined || !!opts.multichannel, '--channels', opts.channels, 'only with --multichannel');
  require(!(
    opts.multichannel && opts.encoding === 'opus'
  ), '--multichannel', true, 'not with --encoding opus (Opus is sent mono)');
}

function streamQuery(opts: Opts, channels: number): SttStreamQuery {
  // the service ignores sample_rate with opus: not sent
  const query: SttStreamQuery =
    opts.encoding === 'opus' ? { encoding: 'opus' } : { sample_rate: opts.sampleRate, encoding: opts.encoding };
  if (opts.model) query.model = opts.model;
  if (opts.interim) query.interim_results = true;
  if (opts.endpointing !== undefined) query.endpointing = opts.endpointing;
  if (opts.language) query.language = opts.language;
  if (opts.format) query.format = true;
  if (opts.diarize) query.diarize = true;
  if (opts.keyterm?.length) query.keyterm = opts.keyterm;
  if (opts.fillerWords) query.filler_words = true;
  if (opts.smartTurn !== undefined) query.smart_turn = opts.smartTurn;
  if (opts.smartTurnTimeout !== undefined) query.smart_turn_timeout = opts.smartTurnTimeout;
  if (opts.vadThreshold !== undefined) query.vad_threshold = opts.vadThreshold;
  if (opts.multichannel) {
    query.multichannel = true;
    query.channels = channels;
  }
  return query;
}

/**
 * One streaming transcription: wait until the service is ready, then send the audio while printing what comes back,
 * until transcript.done. Ctrl-C stops the audio and lets the service finish (audio.done → transcript.done); a second
 * Ctrl-C cuts it. Before the service is ready nothing was sent: the first Ctrl-C ends at once.
 */
class LiveTranscription {
  private interrupted = false;
  /** the user's Ctrl-C stopped it (not a SIGTERM/SIGHUP, which abort ctx.signal only) */
  get byCtrlC(): boolean {
    return this.interrupted;
  }
  private ready = false;
  private sending = false;
  private finished = false;

  constructor(
    private readonly ctx: Context,
    private readonly sock: SttSocket,
    private readonly source: AudioSource,
    private readonly encoding: Encoding | 'opus',
    private readonly view: View,
  ) {}

  async run(): Promise<number> {
    const { ctx, sock } = this;
    ctx.setInterruptHandler(() => {
      const first = !this.interrupted && this.ready;
      this.interrupted = true;
      if (first) void this.source.close();
      else sock.close();
    });
    // the server owes an answer except while audio is still going out (it may rightly say nothing then)
    sock.conn.awaiting = () => !this.sending;
    try {
      await this.waitReady();
      await Promise.all([this.send(), this.receive()]);
    } catch (err) {
      if (this.interrupted && !(err instanceof UsageError)) throw new InterruptedError();
      throw err;
    } finally {
      this.view.flush();
      await this.source.close();
      ctx.setInterruptHandler(undefined);
      sock.close();
    }
    // Ctrl-C keeps what was printed (the final transcript included when it came) and exits 130
    if (this.interrupted || ctx.signal.aborted) throw new InterruptedError();
    if (!this.finished)
      throw new IncompleteError(
        `the service closed the connection before transcript.done${closeNote(sock.conn)}: the transcript is incomplete`,
      );
    return 0;
  }

  private async waitReady(): Promise<void> {
    for (;;) {
      const ev = await this.sock.next();
      if (!ev) {
        if (this.interrupted) throw new InterruptedError();
        throw new NetworkError(`the service closed the connection before it was ready${closeNote(this.sock.conn)}`);
      }
      if (this.ctx.out.json) this.ctx.out.printJsonLine(ev);
      if (ev.type === 'transcript.created') break;
    }
    this.ready = true;
  }

  private async send(): Promise<void> {
    this.sending = true;
    try {
      if (this.encoding === 'opus') await this.sendOpus();
      else {
        const { encodeSamples } = await import('svc-formats/audio-codecs');
        for await (const frame of this.source.frames(FRAME_MS)) {
          if (!this.sock.conn.isOpen) break;
          this.sock.sendAudio(encodeSamples(frame, this.encoding));
          await this.sock.conn.sendable();
        }
      }
    } finally {
      this.sending = false;
      this.sock.audioDone();
    }
  }

  /** PCM frames into the Opus encoder as they come (at real time); each packet out is one binary frame. */
  private async sendOpus(): Promise<void> {
    const { OpusEncoder } = await import('../../audio/opus.js');
    const enc = new OpusEncoder(this.ctx.env);
    const feeding = (async () => {
      try {
        for await (const frame of this.source.frames(FRAME_MS)) {
          if (!this.sock.conn.isOpen) break;
          await enc.write(frame);
        }
      } finally {
        enc.end();
      }
    })();
    try {
      for await (const packet of enc.packets()) {
        if (!this.sock.conn.isOpen) break;
        this.sock.sendAudio(packet);
      }
      await feeding;
    } finally {
      enc.kill();
    }
  }

  private async receive(): Promise<void> {
    for (;;) {
      const ev = await this.sock.next();
      if (!ev) break;
      if (this.ctx.out.json) this.ctx.out.printJsonLine(ev);
      else if (ev.type === 'transcript.partial') this.view.partial(ev as SttPartial);
      else if (ev.type === 'transcript.done') this.view.done(ev as SttDone);
      if (ev.type === 'transcript.done') this.finished = true;
    }
  }
}

function label(words: SttWord[] | undefined, text: string): string {
  if (!words?.some((w) => w.speaker !== undefined)) return text;
  const parts: string[] = [];
  let cur: number | undefined = -1;
  for (const w of words) {
    if (w.speaker !== cur) {
      parts.push(`[speaker ${w.speaker}]`);
      cur = w.speaker;
    }
    parts.push(w.text);
  }
  return parts.join(' ');
}

/** What becomes of the transcript's events: the live transcript, subtitles, or both (-o FILE). */
interface View {
  partial(ev: SttPartial): void;
  done(ev: SttDone): void;
  /** whatever is still open (the connection ended early) */
  flush(): void;
  /** the transcription ended (or was interrupted): files are put in place */
  finish(): Promise<void>;
  /** it failed: a file is not written */
  abort(): Promise<void>;
}

async function makeView(ctx: Context, opts: Opts): Promise<View> {
  const kind: SubtitleKind | undefined = opts.srt ? 'srt' : opts.vtt ? 'vtt' : undefined;
  const transcript = new Transcript(ctx, !!opts.multichannel);
  if (!kind) return transcript;
  if (opts.output === undefined || opts.output === '-')
    return new Subtitles(kind, !!opts.multichannel, { write: async (t) => ctx.out.write(t) });
  const { AtomicFile } = await import('../../core/atomic-file.js');
  const file = await AtomicFile.create(opts.output, { replace: !!opts.force });
  return new Both(transcript, new Subtitles(kind, !!opts.multichannel, fileTarget(file)));
}

interface TextTarget {
  write(text: string): Promise<void>;
  commit?(): Promise<void>;
  discard?(): Promise<void>;
}

function fileTarget(file: AtomicFile): TextTarget {
  return {
    write: async (t) => void (await file.write(Buffer.from(t))),
    commit: async () => void (await file.commit()),
    discard: () => file.discard(),
  };
}

/**
 * Subtitles as the transcript arrives: each final segment (is_final, and what transcript.done adds) becomes cues
 * from its words' timings (transcribe's rules: at most 7 words or 3.5 s), written at once, numbered on.
 */
class Subtitles implements View {
  private n = 0;
  private writing: Promise<void>;
  private error: unknown;

  constructor(
    private readonly kind: SubtitleKind,
    private readonly multichannel: boolean,
    private readonly target: TextTarget,
  ) {
    this.writing = this.put(subtitleHeader(kind));
  }

  private put(text: string): Promise<void> {
    if (!text) return Promise.resolve();
    return this.target.write(text).catch((err) => {
      this.error ??= err;
    });
  }

  private segment(ev: SttPartial | SttDone): void {
    const ch = this.multichannel ? `[channel ${ev.channel_index ?? 0}] ` : '';
    const words = ev.words ?? [];
    let list = cues(words);
    if (!list.length && ev.text && 'start' in ev && typeof ev.start === 'number')
      list = [{ start: ev.start, end: ev.start + (ev.duration ?? 0), text: ev.text }];
    const text = list.map((c) => formatCue(this.kind, ++this.n, { ...c, text: ch + c.text })).join('');
    this.writing = this.writing.then(() => this.put(text));
  }

  partial(ev: SttPartial): void {
    if (ev.is_final) this.segment(ev);
  }

  done(ev: SttDone): void {
    this.segment(ev);
  }

  flush(): void {
    // interim text is not a cue: only final segments have settled timings
  }

  async finish(): Promise<void> {
    await this.writing;
    if (this.error) {
      await this.target.discard?.();
      throw this.error;
    }
    await this.target.commit?.();
  }

  async abort(): Promise<void> {
    await this.writing;
    await this.target.discard?.();
  }
}

/** The live transcript on stdout and the subtitles into a file. */
class Both implements View {
  constructor(
    private readonly shown: Transcript,
    private readonly subtitles: Subtitles,
  ) {}
  partial(ev: SttPartial): void {
    this.shown.partial(ev);
    this.subtitles.partial(ev);
  }
  done(ev: SttDone): void {
    this.shown.done(ev);
    this.subtitles.done(ev);
  }
  flush(): void {
    this.shown.flush();
  }
  finish(): Promise<void> {
    return this.subtitles.finish();
  }
  abort(): Promise<void> {
    return this.subtitles.abort();
  }
}

/**
 * What the user sees. Per channel: finished chunks of the utterance in progress, plus the interim text. On a
 * terminal the line is rewritten in place; in a pipe a line is printed when an utterance ends.
 */
class Transcript implements View {
  private fixed = new Map<number, string[]>();
  private interim = new Map<number, string>();
  private live = false;

  constructor(
    private readonly ctx: Context,
    private readonly multichannel: boolean,
  ) {}

  private prefix(ch: number): string {
    return this.multichannel ? `[channel ${ch}] ` : '';
  }

  private get tty(): boolean {
    return this.ctx.out.stdoutIsTTY;
  }

  private render(ch: number): void {
    if (!this.tty) return;
    const text = [...(this.fixed.get(ch) ?? []), this.interim.get(ch) ?? ''].filter(Boolean).join(' ');
    const width = (this.ctx.streams.stdout.columns ?? 80) - 1;
    const shown = (this.prefix(ch) + text).slice(-width);
    this.ctx.out.control('\r\u001b[2K');
    this.ctx.out.write(shown);
    this.live = shown.length > 0;
  }

  private emitLine(ch: number, text: string): void {
    if (this.tty) {
      this.ctx.out.control('\r\u001b[2K');
      this.ctx.out.write(`${this.prefix(ch)}${text}\n`);
      this.live = false;
    } else this.ctx.out.line(`${this.prefix(ch)}${text}`);
  }

  partial(ev: SttPartial): void {
    const ch = ev.channel_index ?? 0;
    const text = label(ev.words, ev.text ?? '');
    if (!ev.is_final) {
      this.interim.set(ch, text);
      this.render(ch);
      return;
    }
    this.interim.delete(ch);
    if (text) this.fixed.set(ch, [...(this.fixed.get(ch) ?? []), text]);
    if (ev.speech_final) this.endUtterance(ch);
    else this.render(ch);
  }

  private endUtterance(ch: number): void {
    const text = (this.fixed.get(ch) ?? []).join(' ');
    this.fixed.delete(ch);
    this.interim.delete(ch);
    if (text) this.emitLine(ch, text);
    else if (this.tty && this.live) this.ctx.out.control('\r\u001b[2K');
  }

  done(ev: SttDone): void {
    const ch = ev.channel_index ?? 0;
    const text = label(ev.words, ev.text ?? '');
    this.interim.delete(ch);
    if (text) this.fixed.set(ch, [...(this.fixed.get(ch) ?? []), text]);
    this.endUtterance(ch);
  }

  async finish(): Promise<void> {
    // printed as it came
  }

  async abort(): Promise<void> {
    // what was printed stays
  }

  /** whatever is still open (the connection ended early) */
  flush(): void {
    for (const ch of new Set([...this.fixed.keys(), ...this.interim.keys()])) {
      const i = this.interim.get(ch);
      if (i) this.fixed.set(ch, [...(this.fixed.get(ch) ?? []), i]);
      this.endUtterance(ch);
    }
  }
}
