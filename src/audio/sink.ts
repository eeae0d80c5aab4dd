// Audio sinks: the speaker (`speaker`, loaded lazily), a file, or stdout. `write` takes PCM s16le in the
// sink's format; a file or stdout gets it encoded in a codec (WAV by default, with its sizes patched when a
// file ends; raw PCM, mu-law, A-law or MP3 by extension or `codec`). `clear()` drops what has not been
// played yet (barge-in). Encoded bytes that are already in the wanted codec can bypass the PCM path with
// `openByteSink`. Files go through the atomic writer: `end()` puts a complete file in place, `abort()` leaves the
// target as it was.
import { AtomicFile } from '../core/atomic-file.js';
import { Mp3Encoder, encodeSamples, wavHeader } from 'svc-formats/audio-codecs';
import { openSpeaker, type SpeakerCtor, type SpeakerLike } from './devices.js';
import { codecFromPath, type Codec, type PcmFormat } from 'svc-formats/audio-format';

export type SinkSpec = 'speaker' | '-' | (string & {});

export interface SinkOptions {
  /** format of the PCM given to write() */
  format: PcmFormat;
  /** file/stdout codec (default: by file extension, else wav) */
  codec?: Codec;
  /** MP3 bit rate (bits/s, default 128000) */
  bitRate?: number;
  /** playback device for the speaker (ALSA name) */
  device?: string;
  /** stdout for `-` (default process.stdout) */
  stdout?: NodeJS.WritableStream;
}

export interface AudioSink {
  readonly kind: 'speaker' | 'file' | 'stdout';
  readonly format: PcmFormat;
  /** codec written (files and stdout); `pcm` for the speaker */
  readonly codec: Codec;
  /**
   * queue PCM for playback / writing; resolves when it was handed on (back-pressure). `handed` is called when the
   * bytes reached the device (the speaker's native write to ALSA returned) or the file/stdout took them.
   */
  write(pcm: Buffer, handed?: () => void): Promise<void>;
  /** stop playback now and drop what is queued (barge-in); later writes play again */
  clear(): void;
  /** flush, finish the file (WAV sizes) or let the speaker drain; resolves when done */
  end(): Promise<void>;
  /** the command failed: a file is not written (its target untouched), the speaker stops */
  abort(): Promise<void>;
}

export async function openSink(spec: SinkSpec, opts: SinkOptions): Promise<AudioSink> {
  if (spec === 'speaker') return SpeakerSink.open(opts);
  const codec = opts.codec ?? (spec === '-' ? 'wav' : (codecFromPath(spec) ?? 'wav'));
  const out = spec === '-' ? new StdoutTarget(opts.stdout ?? process.stdout) : await FileTarget.open(spec);
  const encoder = await makeEncoder(codec, opts.format, opts.bitRate);
  return new EncodedSink(spec === '-' ? 'stdout' : 'file', out, opts.format, codec, encoder);
}

/** Where encoded bytes go. */
export interface ByteTarget {
  write(b: Uint8Array): Promise<void>;
  /** rewrite bytes at an offset (files only; false when not possible) */
  patch(offset: number, b: Uint8Array): Promise<boolean>;
  end(): Promise<void>;
  /** drop what was written (files: the target stays as it was) */
  abort(): Promise<void>;
}

class StdoutTarget implements ByteTarget {
  constructor(private readonly out: NodeJS.WritableStream) {}
  write(b: Uint8Array): Promise<void> {
    if (b.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const ok = this.out.write(b, (err) => (err ? reject(err) : undefined));
      if (ok) resolve();
      else this.out.once('drain', () => resolve());
    });
  }
  async patch(): Promise<boolean> {
    return false;
  }
  async end(): Promise<void> {
    // stdout stays open for the process; nothing to close
  }
  async abort(): Promise<void> {
    // what reached stdout stays there
  }
}

class FileTarget implements ByteTarget {
  private constructor(private readonly file: AtomicFile) {}
  static async open(path: string): Promise<FileTarget> {
    return new FileTarget(await AtomicFile.create(path));
  }
  async write(b: Uint8Array): Promise<void> {
    if (b.length === 0) return;
    await this.file.write(b);
  }
  patch(offset: number, b: Uint8Array): Promise<boolean> {
    return this.file.writeAt(offset, b);
  }
  async end(): Promise<void> {
    await this.file.commit();
  }
  async abort(): Promise<void> {
    await this.file.discard();
  }
}

export async function openByteTarget(spec: '-' | (string & {}), stdout?: NodeJS.WritableStream): Promise<ByteTarget> {
  return spec === '-' ? new StdoutTarget(stdout ?? process.stdout) : FileTarget.open(spec);
}

interface Encoder {
  header?: Buffer;
  encode(pcm: Buffer): Buffer;
  flush(): Buffer;
  /** header rewritten with the final sizes */
  finalHeader?(dataBytes: number): Buffer;
}

async function makeEncoder(codec: Codec, format: PcmFormat, bitRate?: number): Promise<Encoder> {
  switch (codec) {
    case 'wav':
      return {
        header: wavHeader(format),
        encode: (p) => p,
        flush: () => Buffer.alloc(0),
        finalHeader: (n) => wavHeader(format, n),
      };
    case 'pcm':
      return { encode: (p) => p, flush: () => Buffer.alloc(0) };
    case 'mulaw':
    case 'alaw':
      return { encode: (p) => encodeSamples(p, codec), flush: () => Buffer.alloc(0) };
    case 'mp3': {
      const enc = await Mp3Encoder.create(format, bitRate);
      return { encode: (p) => enc.encode(p), flush: () => enc.flush() };
    }
  }
}

class EncodedSink implements AudioSink {
  private started = false;
  private dataBytes = 0;
  private carry = Buffer.alloc(0);
  constructor(
    readonly kind: 'file' | 'stdout',
    private readonly out: ByteTarget,
    readonly format: PcmFormat,
    readonly codec: Codec,
    private readonly enc: Encoder,
  ) {}

  async write(pcm: Buffer, handed?: () => void): Promise<void> {
    if (!this.started) {
      this.started = true;
      if (this.enc.header) await this.out.write(this.enc.header);
    }
    // whole samples only
    const all = this.carry.length ? Buffer.concat([this.carry, pcm]) : pcm;
    const usable = all.length - (all.length % 2);
    this.carry = Buffer.from(all.subarray(usable));
    const bytes = this.enc.encode(all.subarray(0, usable));
    this.dataBytes += bytes.length;
    await this.out.write(bytes);
    handed?.();
  }

  clear(): void {
    // a file keeps everything: nothing is "playing"
  }

  async end(): Promise<void> {
    if (!this.started && this.enc.header) await this.out.write(this.enc.header);
    const tail = this.enc.flush();
    this.dataBytes += tail.length;
    await this.out.write(tail);
    if (this.enc.finalHeader) await this.out.patch(0, this.enc.finalHeader(this.dataBytes));
    await this.out.end();
  }

  async abort(): Promise<void> {
    await this.out.abort();
  }
}

/**
 * Plays through `speaker`. The Speaker instance is created on the first write (so opening costs nothing
 * until there is sound); clear() closes it without draining and the next write opens a new one.
 */
class SpeakerSink implements AudioSink {
  readonly kind = 'speaker' as const;
  readonly codec = 'pcm' as const;
  private speaker: SpeakerLike | undefined;
  private closing: Promise<void>[] = [];
  private error: Error | undefined;

  private constructor(
    private readonly Ctor: SpeakerCtor,
    readonly format: PcmFormat,
    private readonly device?: string,
  ) {}

  static async open(opts: SinkOptions): Promise<SpeakerSink> {
    const Ctor = await openSpeaker({ ...opts.format, device: opts.device });
    return new SpeakerSink(Ctor, opts.format, opts.device);
  }

  private current(): SpeakerLike {
    if (!this.speaker) {
      const s = new this.Ctor({
        channels: this.format.channels,
        bitDepth: 16,
        sampleRate: this.format.sampleRate,
        signed: true,
        ...(this.device ? { device: this.device } : {}),
      });
      s.on('error', (err: Error) => {
        this.error ??= new Error(`cannot play audio: ${err.message}`);
      });
      this.speaker = s;
    }
    return this.speaker;
  }

  write(pcm: Buffer, handed?: () => void): Promise<void> {
    if (this.error) return Promise.reject(this.error);
    if (pcm.length === 0) return Promise.resolve();
    const s = this.current();
    return new Promise((resolve) => {
      // the callback runs once speaker's native write returned: ALSA holds the samples
      const ok = s.write(pcm, (err?: Error | null) => (err ? undefined : handed?.()));
      if (ok) return resolve();
      const done = () => {
        s.removeListener('drain', done);
        s.removeListener('close', done);
        resolve();
      };
      s.once('drain', done);
      s.once('close', done);
    });
  }

  clear(): void {
    const s = this.speaker;
    if (!s) return;
    this.speaker = undefined;
    this.closing.push(
      new Promise<void>((resolve) => {
        s.once('close', () => resolve());
        setTimeout(resolve, 1000).unref();
        s.close(false);
      }),
    );
  }

  async end(): Promise<void> {
    const s = this.speaker;
    this.speaker = undefined;
    if (s) {
      await new Promise<void>((resolve) => {
        s.once('close', () => resolve());
        s.end();
      });
    }
    await Promise.all(this.closing);
    if (this.error) throw this.error;
  }

  async abort(): Promise<void> {
    this.clear();
    await Promise.all(this.closing);
  }
}
