// Encoded audio as it arrives (TTS deltas, one or more utterances) to its destination: played on the
// speaker (decoded to PCM), or written as is to a file or stdout. Several WAV utterances become one WAV
// (later headers dropped, sizes patched when a file ends).
import { performance } from 'node:perf_hooks';
import { PcmConverter, createStreamDecoder, parseWavHeader, type StreamDecoder } from 'svc-formats/audio-codecs';
import type { Codec, PcmFormat } from 'svc-formats/audio-format';
import { ONLY_SPEAKER, openByteTarget, openSink, type AudioSink, type ByteTarget, type StdoutBytes } from './sink.js';
import { fail } from '../core/validate.js';
import type { AudioDevice } from './backend.js';

export interface EncodedOutputOptions {
  /** `speaker`, `-` (stdout) or a file path */
  dest: 'speaker' | '-' | (string & {});
  codec: Codec;
  /** format of headerless audio (pcm, mulaw, alaw) */
  format: PcmFormat;
  /** --output-device: an index or name from `svc audio devices` */
  device?: string;
  stdout?: StdoutBytes;
  env?: NodeJS.ProcessEnv;
  /** replace an existing file (--force); otherwise one that appears meanwhile is not replaced */
  replace?: boolean;
}

export class EncodedOutput {
  /** performance.now() when the first bytes reached the sink */
  firstBytesAt: number | undefined;
  /** encoded bytes received */
  bytesIn = 0;
  /** seconds of audio played or written, when it can be known (all but MP3 to a file) */
  seconds = 0;

  private sink?: AudioSink;
  private target?: ByteTarget;
  private decoder?: StreamDecoder;
  private converter?: PcmConverter;
  private utteranceStart = true;
  private head = Buffer.alloc(0); // WAV header being collected (later utterances)
  private wavHeaderSize = 0;
  private wavData = 0;

  private chosen?: AudioDevice;

  private constructor(private readonly opts: EncodedOutputOptions) {}

  static async open(opts: EncodedOutputOptions): Promise<EncodedOutput> {
    const o = new EncodedOutput(opts);
    if (opts.dest === 'speaker') {
      // choose and check the device now, so a wrong one is reported before anything is requested
      const env = opts.env ?? process.env;
      const { chooseDevice } = await import('./choose.js');
      o.chosen = await chooseDevice('output', opts.device, { env });
      const { checkPlayback } = await import('./sink.js');
      await checkPlayback(opts.format, o.chosen, env);
    } else {
      if (opts.device !== undefined) fail('--output-device', opts.device, ONLY_SPEAKER);
      o.target = await openByteTarget(opts.dest, opts.stdout, opts.replace);
    }
    return o;
  }

  get toSpeaker(): boolean {
    return this.opts.dest === 'speaker';
  }

  async write(bytes: Uint8Array): Promise<void> {
    if (bytes.length === 0) return;
    this.bytesIn += bytes.length;
    if (this.toSpeaker) return this.play(Buffer.from(bytes));
    let b = Buffer.from(bytes);
    if (this.opts.codec === 'wav') {
      if (this.utteranceStart || this.head.length) {
        this.head = Buffer.concat([this.head, b]);
        const info = parseWavHeader(this.head);
        if (!info) return;
        const first = this.wavHeaderSize === 0;
        if (first) {
          this.wavHeaderSize = info.dataOffset;
          this.seconds = 0;
          await this.emit(this.head.subarray(0, info.dataOffset));
        }
        b = this.head.subarray(info.dataOffset);
        this.head = Buffer.alloc(0);
        this.utteranceStart = false;
        this.rate = info.format.sampleRate * info.blockAlign;
      }
      this.wavData += b.length;
      this.seconds = this.rate ? this.wavData / this.rate : 0;
    } else if (this.opts.codec !== 'mp3') {
      const bps = this.opts.format.sampleRate * this.opts.format.channels * (this.opts.codec === 'pcm' ? 2 : 1);
      this.seconds += b.length / bps;
    }
    this.utteranceStart = false;
    await this.emit(b);
  }

  private rate = 0;

  private async emit(b: Uint8Array): Promise<void> {
    if (b.length === 0) return;
    this.firstBytesAt ??= performance.now();
    await this.target!.write(b);
  }

  private async play(b: Buffer): Promise<void> {
    this.decoder ??= await createStreamDecoder(this.opts.codec, this.opts.format);
    const pcm = this.decoder.push(b);
    if (pcm.length === 0 || !this.decoder.format) return;
    const fmt = this.decoder.format;
    this.sink ??= await openSink('speaker', { format: fmt, chosen: this.chosen, env: this.opts.env });
    if (fmt.sampleRate !== this.sink.format.sampleRate || fmt.channels !== this.sink.format.channels) {
      this.converter ??= new PcmConverter(fmt, this.sink.format);
    }
    const out = this.converter ? this.converter.push(pcm) : pcm;
    this.seconds += out.length / 2 / this.sink.format.channels / this.sink.format.sampleRate;
    this.firstBytesAt ??= performance.now();
    await this.sink.write(out);
  }

  /** The current utterance is complete (audio.done). */
  async endUtterance(): Promise<void> {
    if (this.decoder) {
      const rest = this.decoder.end();
      if (rest.length && this.sink) await this.sink.write(this.converter ? this.converter.push(rest) : rest);
      this.decoder = undefined;
      this.converter = undefined;
    }
    this.utteranceStart = true;
  }

  /** Stop playback now (barge-in). */
  clear(): void {
    this.sink?.clear();
    this.decoder = undefined;
    this.converter = undefined;
    this.utteranceStart = true;
  }

  /** Finish: drain the speaker, or patch the WAV sizes and close the file. */
  async end(): Promise<void> {
    await this.endUtterance();
    if (this.sink) await this.sink.end();
    if (this.target) {
      if (this.opts.codec === 'wav' && this.wavHeaderSize) {
        const riff = Buffer.alloc(4);
        riff.writeUInt32LE(Math.min(0xffffffff, this.wavHeaderSize - 8 + this.wavData));
        const data = Buffer.alloc(4);
        data.writeUInt32LE(Math.min(0xffffffff, this.wavData));
        if (await this.target.patch(4, riff)) await this.target.patch(this.wavHeaderSize - 4, data);
      }
      await this.target.end();
    }
  }

  /** The command failed or was interrupted: stop playing; a file is not written (its target stays as it was). */
  async abort(): Promise<void> {
    this.decoder = undefined;
    this.converter = undefined;
    if (this.sink) await this.sink.abort().catch(() => undefined);
    if (this.target) await this.target.abort().catch(() => undefined);
  }
}
