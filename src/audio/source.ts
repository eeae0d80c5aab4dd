// Audio sources: the microphone (`mic`), a file, or stdin, all yielding PCM s16le at the requested rate in
// frames of a fixed duration. WAV is read by its header, MP3 is decoded, anything else is raw bytes in the
// given encoding. Files and stdin are paced at real time on request (`realtime`), the microphone is real
// time by nature. A muted source keeps its cadence but yields silence (half-duplex voice sessions).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import {
  Mp3Decoder,
  PcmConverter,
  decodeSamples,
  isMp3,
  isWav,
  parseWavHeader,
  wavSamplesToPcm,
  type WavSampleFormat,
} from 'svc-formats/audio-codecs';
import { CAPTURE_HINT, AudioDeviceError, onPath } from './devices.js';
import { audioBackend, type AudioDevice } from './backend.js';
import { chooseDevice } from './choose.js';
import { InterruptedError, UsageError } from '../core/errors.js';
import { fail } from '../core/validate.js';
import { FFMPEG_HINT, ffmpegAvailable, ffmpegDecode } from './ffmpeg.js';
import { SNIFF_BYTES, checkAudioHead, sniffAudio } from './sniff.js';
import type { Encoding, PcmFormat } from 'svc-formats/audio-format';
import { pcmBytes } from 'svc-formats/audio-format';
import { Pacer, sleepUntil } from './pacing.js';
import { childEnvironment } from '../core/environment.js';

export type SourceSpec = 'mic' | '-' | (string & {});

export interface SourceOptions {
  /** rate of the PCM this source yields */
  sampleRate: number;
  /** channels of the PCM this source yields (default 1) */
  channels?: number;
  /** how headerless input is coded (default pcm); WAV and MP3 input is recognised by its first bytes */
  encoding?: Encoding;
  /** rate of headerless input (default: sampleRate) */
  inputSampleRate?: number;
  /** channels of headerless input (default: channels) */
  inputChannels?: number;
  /** pace frames at real time (files and stdin; the microphone is always real time) */
  realtime?: boolean;
  /** capture device for the microphone: an index or name from `svc audio devices` (chooseDevice) */
  device?: string;
  /** the microphone, when the caller chose it already (chooseDevice) */
  chosen?: AudioDevice;
  /** the sound system's platform (default: this one; tests inject darwin and win32) */
  platform?: NodeJS.Platform;
  /** ends the source (like close()) */
  signal?: AbortSignal;
  /** stdin for `-` (default process.stdin) */
  stdin?: NodeJS.ReadableStream;
  env?: NodeJS.ProcessEnv;
  /** the flag that named the input, for messages (default --input) */
  flag?: string;
}

export interface AudioSource {
  readonly kind: 'mic' | 'file' | 'stdin';
  /** format of the PCM yielded */
  readonly format: PcmFormat;
  /** format of the input as found (known once the first bytes were read) */
  readonly inputFormat: PcmFormat | undefined;
  /**
   * PCM frames of `frameMs` each (the last may be shorter). Can be iterated once. Ends at the end of the
   * input or on close().
   */
  frames(frameMs: number): AsyncIterable<Buffer>;
  /** while muted, frames keep coming at the same pace but carry silence */
  setMuted(muted: boolean): void;
  readonly muted: boolean;
  /** what the input was found to be (WAV, MP3, FLAC via ffmpeg, headerless audio, …); undefined for the microphone */
  readonly container?: string;
  /** stop reading (the microphone is released); a running frames() loop ends */
  close(): Promise<void>;
  /** when a frame yielded was captured, for a source that processes its frames before yielding them (--aec) */
  stampOf?(frame: Buffer): FrameStamp | undefined;
}

/** The moments of a frame before it was yielded (performance.now(), ms). */
export interface FrameStamp {
  /** the raw frame came from the device, before any processing */
  capturedAt: number;
  /** time spent processing it (the echo canceller) */
  processMs: number;
  /** how far its audio lags the raw frame's (the canceller's block and what waits for a whole block) */
  lagMs: number;
  /** how much of it the echo canceller's start-up hold held down */
  heldMs: number;
  /** how much of it the echo canceller's start-up suppressor worked on (the hold's place once the room is learnt) */
  suppressedMs: number;
}

/** Open `mic`, `-` (stdin) or a file path. */
export async function openSource(spec: SourceSpec, opts: SourceOptions): Promise<AudioSource> {
  const format: PcmFormat = { sampleRate: opts.sampleRate, channels: opts.channels ?? 1 };
  const stop = new AbortController();
  opts.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  if (spec === 'mic') return openMic(format, opts, stop);
  // a device for a file or a pipe would be ignored: said, before anything is sent
  if (opts.device !== undefined) fail('--input-device', opts.device, 'only with the microphone (--input mic)');
  const flag = opts.flag ?? '--input';
  let bytes: AsyncIterable<Buffer>;
  let destroy: () => void;
  if (spec === '-') {
    const stdin = opts.stdin ?? process.stdin;
    bytes = stdin as AsyncIterable<Buffer>;
    destroy = () => (stdin as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
  } else {
    const st = await stat(spec).catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`${flag}: cannot read ${spec}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
    });
    if (!st.isFile())
      throw new UsageError(
        `${flag}: ${spec} is ${st.isDirectory() ? 'a directory' : 'not a file'} (give an audio file, mic or -)`,
      );
    const rs = createReadStream(spec, { highWaterMark: 64 * 1024 });
    bytes = rs;
    destroy = () => rs.destroy();
  }
  const kind = spec === '-' ? 'stdin' : 'file';
  const label = spec === '-' ? 'stdin' : spec;
  // what the input holds, before anything is sent: text or a container svc cannot read is refused (exit 2)
  const { head, rest } = await peek(bytes, SNIFF_BYTES);
  try {
    checkAudioHead(head, label, flag);
  } catch (err) {
    destroy();
    throw err;
  }
  const sniffed = sniffAudio(head);
  if (sniffed.kind === 'text') {
    destroy();
    throw new UsageError(`${flag}: ${label} holds text, not audio`);
  }
  if (sniffed.kind === 'container') {
    if (!ffmpegAvailable(opts.env)) {
      destroy();
      throw new UsageError(`${flag}: ${label} is ${sniffed.name} audio; ${FFMPEG_HINT}`);
    }
    // a file is given to ffmpeg by name (it may seek, e.g. an M4A whose index is at the end); a pipe streams
    if (spec !== '-') destroy();
    const dec = ffmpegDecode(spec === '-' ? { bytes: prepend(head, rest) } : { path: spec }, format, label, opts.env);
    const decoded = {
      ...opts,
      encoding: 'pcm' as const,
      inputSampleRate: format.sampleRate,
      inputChannels: format.channels,
    };
    const src = new StreamSource(
      kind,
      dec.pcm,
      format,
      decoded,
      stop,
      () => {
        dec.kill();
        if (spec === '-') destroy();
      },
      !!opts.realtime,
      true,
    );
    src.container = sniffed.name;
    return src;
  }
  const src = new StreamSource(kind, prepend(head, rest), format, opts, stop, destroy, !!opts.realtime);
  src.container = sniffed.name;
  return src;
}

/** The first `n` bytes (fewer at the end of the input), and an iterator over the rest. */
async function peek(bytes: AsyncIterable<Buffer>, n: number): Promise<{ head: Buffer; rest: AsyncIterator<Buffer> }> {
  const it = bytes[Symbol.asyncIterator]();
  const parts: Buffer[] = [];
  let len = 0;
  while (len < n) {
    const r = await it.next();
    if (r.done) break;
    const b = Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value as Uint8Array);
    parts.push(b);
    len += b.length;
  }
  return { head: Buffer.concat(parts), rest: it };
}

async function* prepend(head: Buffer, rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  if (head.length) yield head;
  for (;;) {
    const r = await rest.next();
    if (r.done) return;
    yield r.value;
  }
}

/** The capture program of the platform's backend, started on the chosen device (backend.ts). */
async function openMic(format: PcmFormat, opts: SourceOptions, stop: AbortController): Promise<AudioSource> {
  const env = opts.env ?? process.env;
  const backend = audioBackend(opts.platform);
  const device = opts.chosen ?? (await chooseDevice('input', opts.device, { env, platform: opts.platform }));
  const cmd = backend.capture(device, format);
  if (!onPath(cmd.command, env, opts.platform))
    throw new AudioDeviceError(
      `cannot record: \`${cmd.command}\` is not installed (${backend.install}); ${CAPTURE_HINT}`,
    );
  const { spawn } = await import('node:child_process');
  const child = spawn(cmd.command, cmd.args, {
    env: childEnvironment({ ...env, ...cmd.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
  });
  let said = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    if (said.length < 4000) said += d;
  });
  let exited = false;
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  child.on('exit', () => {
    exited = true;
  });
  child.on('error', () => undefined); // reported below as "stopped without audio"
  const stopChild = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
  };
  const name = device?.name ?? 'default';
  const head = await firstBytes(child.stdout, stop, closed, stopChild);
  if (!head) {
    await closed;
    const detail = said.trim().split('\n')[0]?.slice(0, 200);
    throw new AudioDeviceError(
      `cannot record: no sound card, or the capture device "${name}" cannot be opened (${cmd.command} stopped ` +
        `without audio${detail ? `: ${detail}` : ''}); ${CAPTURE_HINT}`,
    );
  }
  const bytes = (async function* () {
    yield head;
    for await (const b of child.stdout) yield b as Buffer;
  })();
  const src = new StreamSource('mic', bytes, format, opts, stop, stopChild, false);
  src.onEmpty = () => {
    if (exited && !stop.signal.aborted) {
      throw new AudioDeviceError(
        `the microphone gave no audio: ${cmd.command} stopped (device ${name}; \`svc audio devices\` lists the ` +
          'devices, choose one with --input-device)',
      );
    }
  };
  return src;
}

/**
 * The capture program writes nothing until the device opened: its first bytes (or its end, undefined) tell, so
 * that a machine without a sound card is told so before anything is sent. Ctrl-C meanwhile stops it.
 */
async function firstBytes(
  out: NodeJS.ReadableStream,
  stop: AbortController,
  closed: Promise<void>,
  stopChild: () => void,
): Promise<Buffer | undefined> {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    stop.signal.addEventListener('abort', onAbort, { once: true });
  });
  const data = new Promise<Buffer | undefined>((resolve) => {
    out.once('data', (b: Buffer) => {
      out.pause(); // the rest is read by the frames' iterator
      resolve(b);
    });
    void closed.then(() => resolve(undefined));
  });
  try {
    const first = await Promise.race([data, aborted]);
    if (first === 'aborted') {
      stopChild();
      throw new InterruptedError();
    }
    return first;
  } finally {
    stop.signal.removeEventListener('abort', onAbort!);
  }
}

class StreamSource implements AudioSource {
  muted = false;
  inputFormat: PcmFormat | undefined;
  container: string | undefined;
  onEmpty?: () => void;
  private used = false;

  constructor(
    readonly kind: 'mic' | 'file' | 'stdin',
    private readonly bytes: AsyncIterable<Buffer>,
    readonly format: PcmFormat,
    private readonly opts: SourceOptions,
    private readonly stop: AbortController,
    private readonly destroy: () => void,
    private readonly paced: boolean,
    /** the bytes are PCM already (decoded by ffmpeg): no container detection */
    private readonly decoded = false,
  ) {
    stop.signal.addEventListener('abort', () => this.destroy(), { once: true });
  }

  setMuted(muted: boolean): void {
    this.muted = muted;
  }

  async close(): Promise<void> {
    this.stop.abort();
  }

  frames(frameMs: number): AsyncIterable<Buffer> {
    if (this.used) throw new Error('an audio source can be read once');
    this.used = true;
    return this.generate(frameMs);
  }

  private async *generate(frameMs: number): AsyncGenerator<Buffer> {
    const size = pcmBytes(this.format, frameMs);
    const pacer = this.paced ? new Pacer(frameMs) : undefined;
    let pending: Buffer[] = [];
    let pendingLen = 0;
    let any = false;
    const signal = this.stop.signal;
    const emit = async function* (this: StreamSource, frame: Buffer): AsyncGenerator<Buffer> {
      if (pacer) await pacer.tick(signal);
      if (signal.aborted) return;
      yield this.muted ? Buffer.alloc(frame.length) : frame;
    }.bind(this);
    try {
      for await (const pcm of this.pcm()) {
        if (signal.aborted) return;
        if (pcm.length === 0) continue;
        any = true;
        pending.push(pcm);
        pendingLen += pcm.length;
        if (pendingLen < size) continue;
        let all = Buffer.concat(pending);
        while (all.length >= size) {
          const frame = all.subarray(0, size);
          all = all.subarray(size);
          for await (const f of emit(frame)) yield f;
          if (signal.aborted) return;
        }
        pending = all.length ? [all] : [];
        pendingLen = all.length;
      }
      if (pendingLen > 0 && !signal.aborted) for await (const f of emit(Buffer.concat(pending))) yield f;
      if (!any) this.onEmpty?.();
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    } finally {
      this.destroy();
    }
  }

  /** The input decoded to PCM in this source's format, chunk by chunk. */
  private async *pcm(): AsyncGenerator<Buffer> {
    let head = Buffer.alloc(0);
    let decode: ((b: Buffer) => Buffer) | undefined;
    let converter: PcmConverter | undefined;
    let mp3: Mp3Decoder | undefined;
    let remaining = Infinity; // bytes of WAV data left
    const setup = async (first: Buffer, atEnd: boolean): Promise<Buffer | undefined> => {
      if (!this.decoded && isWav(first)) {
        const info = parseWavHeader(first);
        if (!info) {
          if (atEnd) throw new Error('truncated WAV header');
          return undefined;
        }
        this.inputFormat = info.format;
        remaining = info.dataLength ?? Infinity;
        decode = blockDecoder(info.sample, info.blockAlign);
        converter = new PcmConverter(info.format, this.format);
        return first.subarray(info.dataOffset);
      }
      if (!this.decoded && isMp3(first)) {
        mp3 = await Mp3Decoder.create();
        decode = (b) => {
          const out = mp3!.decode(b);
          if (mp3!.format && !converter) {
            this.inputFormat = mp3!.format;
            converter = new PcmConverter(mp3!.format, this.format);
          }
          return out;
        };
        return first;
      }
      const enc = this.opts.encoding ?? 'pcm';
      const inFormat = {
        sampleRate: this.opts.inputSampleRate ?? this.format.sampleRate,
        channels: this.opts.inputChannels ?? this.format.channels,
      };
      this.inputFormat = inFormat;
      converter = new PcmConverter(inFormat, this.format);
      decode =
        enc === 'pcm'
          ? blockDecoder('s16', 2 * inFormat.channels)
          : enc === 'mulaw'
            ? blockDecoder('mulaw', inFormat.channels)
            : blockDecoder('alaw', inFormat.channels);
      return first;
    };
    try {
      for await (const chunk of this.bytes) {
        let b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        if (!decode) {
          head = Buffer.concat([head, b]);
          // WAV is known from 12 bytes; telling MP3 from raw bytes needs two frame headers
          if (head.length < 12 || (!isWav(head) && head.length < 4096)) continue;
          const rest = await setup(head, false);
          if (rest === undefined) continue;
          b = rest;
        }
        if (remaining !== Infinity) {
          if (b.length > remaining) b = b.subarray(0, remaining);
          remaining -= b.length;
        }
        const pcm = decode!(b);
        if (converter) yield converter.push(pcm);
        if (remaining === 0) break;
      }
      if (!decode && head.length) {
        const rest = await setup(head, true);
        if (rest && decode) {
          const pcm = (decode as (b: Buffer) => Buffer)(rest);
          if (converter) yield (converter as PcmConverter).push(pcm);
        }
      }
    } finally {
      mp3?.free();
    }
  }
}

/** Decode whole sample frames, carrying a partial frame to the next chunk. */
function blockDecoder(sample: WavSampleFormat, blockAlign: number): (b: Buffer) => Buffer {
  let carry = Buffer.alloc(0);
  return (b) => {
    const all = carry.length ? Buffer.concat([carry, b]) : b;
    const usable = all.length - (all.length % blockAlign);
    carry = Buffer.from(all.subarray(usable));
    const body = all.subarray(0, usable);
    return sample === 'mulaw' || sample === 'alaw' ? decodeSamples(body, sample) : wavSamplesToPcm(body, sample);
  };
}

/** Read a whole source into one PCM buffer (files and pipes; not the microphone). */
export async function readAllPcm(source: AudioSource, frameMs = 100): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const f of source.frames(frameMs)) parts.push(f);
  return Buffer.concat(parts);
}

export { sleepUntil };
