// Codecs between the internal PCM s16le and what files, pipes and the API carry: WAV headers, G.711 mu-law
// and A-law (alawmulaw), MP3 encode (lamejs) and decode (mpg123-decoder, WASM), channel mixing, resampling.
// The heavy ones (lamejs, mpg123) are imported on first use.
import { createRequire } from 'node:module';
import type { Codec, Encoding, PcmFormat } from './audio-format.js';

const requireCjs = createRequire(import.meta.url);
type G711 = { encode(samples: Int16Array): Uint8Array; decode(samples: Uint8Array): Int16Array };
let g711: { mulaw: G711; alaw: G711 } | undefined;
function g711Lib(): { mulaw: G711; alaw: G711 } {
  g711 ??= requireCjs('alawmulaw') as { mulaw: G711; alaw: G711 };
  return g711;
}

/** An Int16Array view of a PCM s16le buffer (copied when the buffer is not 2-byte aligned). */
export function samplesOf(pcm: Uint8Array): Int16Array {
  const even = pcm.length - (pcm.length % 2);
  if (pcm.byteOffset % 2 === 0) return new Int16Array(pcm.buffer, pcm.byteOffset, even / 2);
  const copy = Buffer.from(pcm.subarray(0, even));
  return new Int16Array(copy.buffer, copy.byteOffset, even / 2);
}

export function bufferOf(samples: Int16Array | Uint8Array): Buffer {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}

// ---------------------------------------------------------------------------------------------- G.711

export function mulawEncode(pcm: Uint8Array): Buffer {
  return bufferOf(g711Lib().mulaw.encode(samplesOf(pcm)));
}
export function mulawDecode(bytes: Uint8Array): Buffer {
  return bufferOf(g711Lib().mulaw.decode(bytes));
}
export function alawEncode(pcm: Uint8Array): Buffer {
  return bufferOf(g711Lib().alaw.encode(samplesOf(pcm)));
}
export function alawDecode(bytes: Uint8Array): Buffer {
  return bufferOf(g711Lib().alaw.decode(bytes));
}

/** PCM s16le → the encoding's bytes. */
export function encodeSamples(pcm: Uint8Array, encoding: Encoding): Buffer {
  if (encoding === 'mulaw') return mulawEncode(pcm);
  if (encoding === 'alaw') return alawEncode(pcm);
  return Buffer.from(pcm);
}

/** The encoding's bytes → PCM s16le. */
export function decodeSamples(bytes: Uint8Array, encoding: Encoding): Buffer {
  if (encoding === 'mulaw') return mulawDecode(bytes);
  if (encoding === 'alaw') return alawDecode(bytes);
  return Buffer.from(bytes);
}

// ---------------------------------------------------------------------------------------------- WAV

/** Sample coding inside a WAV file. */
export type WavSampleFormat = 's16' | 'u8' | 's24' | 's32' | 'f32' | 'mulaw' | 'alaw';

export interface WavInfo {
  format: PcmFormat;
  sample: WavSampleFormat;
  /** bytes per sample frame (all channels) */
  blockAlign: number;
  /** offset of the first sample */
  dataOffset: number;
  /** length of the data chunk; undefined when the header says "unknown" (streamed WAV) */
  dataLength?: number;
}

export function isWav(head: Uint8Array): boolean {
  return (
    head.length >= 12 &&
    Buffer.from(head.subarray(0, 4)).toString('latin1') === 'RIFF' &&
    Buffer.from(head.subarray(8, 12)).toString('latin1') === 'WAVE'
  );
}

/**
 * Parse a WAV header. Returns undefined when more bytes are needed to reach the data chunk; throws when the
 * bytes are not a WAV file this layer can read.
 */
export function parseWavHeader(buf: Uint8Array): WavInfo | undefined {
  if (buf.length < 12) return undefined;
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (!isWav(b)) throw new Error('not a WAV file (no RIFF/WAVE header)');
  let off = 12;
  let fmt: { tag: number; channels: number; rate: number; blockAlign: number; bits: number } | undefined;
  while (off + 8 <= b.length) {
    const id = b.toString('latin1', off, off + 4);
    const size = b.readUInt32LE(off + 4);
    if (id === 'data') {
      if (!fmt) throw new Error('WAV file has no fmt chunk before its data');
      const sample = sampleFormatOf(fmt.tag, fmt.bits);
      const unknown = size === 0 || size === 0xffffffff;
      return {
        format: { sampleRate: fmt.rate, channels: fmt.channels },
        sample,
        blockAlign: fmt.blockAlign || (fmt.channels * fmt.bits) / 8,
        dataOffset: off + 8,
        dataLength: unknown ? undefined : size,
      };
    }
    if (off + 8 + size > b.length) return undefined;
    if (id === 'fmt ') {
      let tag = b.readUInt16LE(off + 8);
      const bits = b.readUInt16LE(off + 22);
      // WAVE_FORMAT_EXTENSIBLE: the real tag is the first two bytes of the sub-format GUID
      if (tag === 0xfffe && size >= 40) tag = b.readUInt16LE(off + 8 + 24);
      fmt = {
        tag,
        channels: b.readUInt16LE(off + 10),
        rate: b.readUInt32LE(off + 12),
        blockAlign: b.readUInt16LE(off + 20),
        bits,
      };
      if (!fmt.channels || !fmt.rate) throw new Error('WAV file has a zero sample rate or channel count');
    }
    off += 8 + size + (size % 2);
  }
  return undefined;
}

function sampleFormatOf(tag: number, bits: number): WavSampleFormat {
  if (tag === 1 && bits === 16) return 's16';
  if (tag === 1 && bits === 8) return 'u8';
  if (tag === 1 && bits === 24) return 's24';
  if (tag === 1 && bits === 32) return 's32';
  if (tag === 3 && bits === 32) return 'f32';
  if (tag === 7 && bits === 8) return 'mulaw';
  if (tag === 6 && bits === 8) return 'alaw';
  throw new Error(`unsupported WAV sample format (format tag ${tag}, ${bits} bits)`);
}

/** Convert whole sample frames of a WAV sample format to PCM s16le. */
export function wavSamplesToPcm(bytes: Uint8Array, sample: WavSampleFormat): Buffer {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (sample) {
    case 's16':
      return Buffer.from(b);
    case 'mulaw':
      return mulawDecode(b);
    case 'alaw':
      return alawDecode(b);
    case 'u8': {
      const out = Buffer.alloc(b.length * 2);
      for (let i = 0; i < b.length; i++) out.writeInt16LE((b[i]! - 128) << 8, i * 2);
      return out;
    }
    case 's24': {
      const n = Math.floor(b.length / 3);
      const out = Buffer.alloc(n * 2);
      for (let i = 0; i < n; i++) out.writeInt16LE(b.readIntLE(i * 3, 3) >> 8, i * 2);
      return out;
    }
    case 's32': {
      const n = Math.floor(b.length / 4);
      const out = Buffer.alloc(n * 2);
      for (let i = 0; i < n; i++) out.writeInt16LE(b.readInt32LE(i * 4) >> 16, i * 2);
      return out;
    }
    case 'f32': {
      const n = Math.floor(b.length / 4);
      const out = Buffer.alloc(n * 2);
      for (let i = 0; i < n; i++) out.writeInt16LE(floatToS16(b.readFloatLE(i * 4)), i * 2);
      return out;
    }
  }
}

/**
 * A canonical 44-byte WAV header. `dataBytes` undefined writes the "unknown length" marker used by
 * streamed WAV (0xFFFFFFFF); a file sink patches the sizes when it ends.
 */
export function wavHeader(format: PcmFormat, dataBytes?: number, encoding: Encoding = 'pcm'): Buffer {
  const bits = encoding === 'pcm' ? 16 : 8;
  const tag = encoding === 'pcm' ? 1 : encoding === 'alaw' ? 6 : 7;
  const blockAlign = (format.channels * bits) / 8;
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(dataBytes === undefined ? 0xffffffff : Math.min(0xffffffff, 36 + dataBytes), 4);
  h.write('WAVE', 8, 'latin1');
  h.write('fmt ', 12, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(tag, 20);
  h.writeUInt16LE(format.channels, 22);
  h.writeUInt32LE(format.sampleRate, 24);
  h.writeUInt32LE(format.sampleRate * blockAlign, 28);
  h.writeUInt16LE(blockAlign, 32);
  h.writeUInt16LE(bits, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(dataBytes === undefined ? 0xffffffff : Math.min(0xffffffff, dataBytes), 40);
  return h;
}

/** A complete WAV file of PCM s16le. */
export function encodeWav(pcm: Uint8Array, format: PcmFormat): Buffer<ArrayBuffer> {
  return Buffer.concat([wavHeader(format, pcm.length), pcm]);
}

// ---------------------------------------------------------------------------------------------- channels and rates

export function floatToS16(v: number): number {
  const s = Math.round(v * 32767);
  return s > 32767 ? 32767 : Math.max(s, -32768);
}

/** Change the channel count: down-mix to mono by averaging, up-mix by copying, N→M by taking/repeating channels. */
export function mixChannels(pcm: Uint8Array, from: number, to: number): Buffer {
  if (from === to) return Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const src = samplesOf(pcm);
  const frames = Math.floor(src.length / from);
  const out = new Int16Array(frames * to);
  for (let f = 0; f < frames; f++) {
    if (to === 1) {
      let sum = 0;
      for (let c = 0; c < from; c++) sum += src[f * from + c]!;
      out[f] = Math.round(sum / from);
    } else {
      for (let c = 0; c < to; c++) out[f * to + c] = src[f * from + (from === 1 ? 0 : c % from)]!;
    }
  }
  return bufferOf(out);
}

/** One channel of interleaved PCM. */
export function extractChannel(pcm: Uint8Array, channels: number, index: number): Buffer {
  const src = samplesOf(pcm);
  const frames = Math.floor(src.length / channels);
  const out = new Int16Array(frames);
  for (let f = 0; f < frames; f++) out[f] = src[f * channels + index]!;
  return bufferOf(out);
}

/** Interleave mono channels of equal length (the shortest wins). */
export function interleave(channels: Uint8Array[]): Buffer {
  const srcs = channels.map(samplesOf);
  const frames = Math.min(...srcs.map((s) => s.length));
  const out = new Int16Array(frames * srcs.length);
  for (let f = 0; f < frames; f++) for (let c = 0; c < srcs.length; c++) out[f * srcs.length + c] = srcs[c]![f]!;
  return bufferOf(out);
}

/**
 * Streaming resampler with linear interpolation (and a short box pre-filter when down-sampling by 2× or
 * more, which keeps the worst aliasing out). State is kept between chunks, so a stream resampled chunk by
 * chunk equals the stream resampled at once.
 */
export class Resampler {
  private pos = 0; // position of the next output frame, in input frames relative to `prev`
  private prev: number[] | undefined; // last input frame of the previous chunk
  private readonly step: number;
  private readonly box: number;
  private boxHist: number[][] = [];

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
    readonly channels: number,
  ) {
    this.step = fromRate / toRate;
    this.box = this.step >= 2 ? Math.min(8, Math.floor(this.step)) : 1;
  }

  push(pcm: Uint8Array): Buffer {
    if (this.fromRate === this.toRate) return Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    const ch = this.channels;
    let src = samplesOf(pcm);
    const n = Math.floor(src.length / ch);
    if (n === 0) return Buffer.alloc(0);
    if (this.box > 1) src = this.prefilter(src, n);
    // frames of [prev?, ...chunk]; `pos` is relative to the first of them
    const lead = this.prev ? 1 : 0;
    const len = n + lead;
    const at = (i: number, c: number): number => (i < lead ? this.prev![c]! : src[(i - lead) * ch + c]!);
    const out: number[] = [];
    let pos = this.pos;
    while (pos < len - 1) {
      const i = Math.floor(pos);
      const frac = pos - i;
      for (let c = 0; c < ch; c++) {
        const a = at(i, c);
        out.push(frac === 0 ? a : Math.round(a + (at(i + 1, c) - a) * frac));
      }
      pos += this.step;
    }
    this.prev = Array.from({ length: ch }, (_, c) => src[(n - 1) * ch + c]!);
    this.pos = pos - (len - 1);
    return bufferOf(Int16Array.from(out));
  }

  private prefilter(src: Int16Array, n: number): Int16Array {
    const ch = this.channels;
    const out = new Int16Array(n * ch);
    for (let c = 0; c < ch; c++) {
      const hist = (this.boxHist[c] ??= []);
      let sum = hist.reduce((a, b) => a + b, 0);
      for (let i = 0; i < n; i++) {
        const v = src[i * ch + c]!;
        hist.push(v);
        sum += v;
        if (hist.length > this.box) sum -= hist.shift()!;
        out[i * ch + c] = Math.round(sum / hist.length);
      }
    }
    return out;
  }
}

/** Resample a whole buffer of interleaved PCM s16le. */
export function resample(pcm: Uint8Array, fromRate: number, toRate: number, channels = 1): Buffer {
  if (fromRate === toRate) return Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  return new Resampler(fromRate, toRate, channels).push(pcm);
}

/** Streaming conversion between two PCM formats (channels first, then rate). */
export class PcmConverter {
  private readonly resampler?: Resampler;
  constructor(
    readonly from: PcmFormat,
    readonly to: PcmFormat,
  ) {
    if (from.sampleRate !== to.sampleRate) this.resampler = new Resampler(from.sampleRate, to.sampleRate, to.channels);
  }
  get identity(): boolean {
    return this.from.sampleRate === this.to.sampleRate && this.from.channels === this.to.channels;
  }
  push(pcm: Uint8Array): Buffer {
    const mixed = mixChannels(pcm, this.from.channels, this.to.channels);
    return this.resampler ? this.resampler.push(mixed) : mixed;
  }
}

// ---------------------------------------------------------------------------------------------- MP3

type LameEncoder = { encodeBuffer(l: Int16Array, r?: Int16Array): Uint8Array; flush(): Uint8Array };
type LameCtor = new (ch: number, rate: number, kbps: number) => LameEncoder;

/** Sample rate written in the first MPEG audio frame header of `b`. */
export function mp3SampleRate(b: Uint8Array): number | undefined {
  for (let i = 0; i + 3 < b.length; i++) {
    if (b[i] !== 0xff || (b[i + 1]! & 0xe0) !== 0xe0) continue;
    const version = (b[i + 1]! >> 3) & 3; // 0: MPEG 2.5, 2: MPEG 2, 3: MPEG 1
    const idx = (b[i + 2]! >> 2) & 3;
    if (version === 1 || idx === 3) continue;
    const base = [44100, 48000, 32000][idx]!;
    return version === 3 ? base : version === 2 ? base / 2 : base / 4;
  }
  return undefined;
}

/**
 * The rate LAME encodes at, per channels, input rate and bit rate: probed once (an encoder of its own, a frame of
 * silence), as building a lamejs encoder costs more than encoding a short reply.
 */
const lameRates = new Map<string, number>();

/**
 * Streaming MP3 encoder (lamejs). Mono or stereo. At low bit rates LAME lowers the sample rate on its own,
 * and lamejs's internal resampler then writes silence, so the rate LAME will use is probed first and the
 * input resampled to it here.
 */
export class Mp3Encoder {
  private constructor(
    private readonly enc: LameEncoder,
    readonly format: PcmFormat,
    private readonly resampler?: Resampler,
  ) {}

  static async create(format: PcmFormat, bitRate = 128000): Promise<Mp3Encoder> {
    const lame = (await import('@breezystack/lamejs')) as unknown as { Mp3Encoder: LameCtor };
    const channels = Math.min(2, format.channels);
    const kbps = Math.round(bitRate / 1000);
    const key = `${channels} ${format.sampleRate} ${kbps}`;
    let rate = lameRates.get(key);
    if (rate === undefined) {
      const probe = new lame.Mp3Encoder(channels, format.sampleRate, kbps);
      const silence = new Int16Array(1152 * 2);
      const head = Buffer.concat([
        Buffer.from(probe.encodeBuffer(silence, channels === 2 ? silence : undefined)),
        Buffer.from(probe.flush()),
      ]);
      rate = mp3SampleRate(head) ?? format.sampleRate;
      lameRates.set(key, rate);
    }
    return new Mp3Encoder(
      new lame.Mp3Encoder(channels, rate, kbps),
      { sampleRate: rate, channels },
      rate === format.sampleRate ? undefined : new Resampler(format.sampleRate, rate, channels),
    );
  }

  /** PCM s16le with `format.channels` channels at the rate given to create(). */
  encode(pcm: Uint8Array): Buffer {
    const s = samplesOf(this.resampler ? this.resampler.push(pcm) : pcm);
    const out: Uint8Array[] = [];
    const block = 1152 * 8;
    if (this.format.channels === 1) {
      for (let i = 0; i < s.length; i += block) out.push(this.enc.encodeBuffer(s.subarray(i, i + block)));
    } else {
      const frames = Math.floor(s.length / 2);
      const l = new Int16Array(frames);
      const r = new Int16Array(frames);
      for (let i = 0; i < frames; i++) {
        l[i] = s[2 * i]!;
        r[i] = s[2 * i + 1]!;
      }
      for (let i = 0; i < frames; i += block)
        out.push(this.enc.encodeBuffer(l.subarray(i, i + block), r.subarray(i, i + block)));
    }
    return Buffer.concat(out.map((u) => Buffer.from(u.buffer, u.byteOffset, u.byteLength)));
  }

  flush(): Buffer {
    const u = this.enc.flush();
    return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
  }
}

export async function encodeMp3(pcm: Uint8Array, format: PcmFormat, bitRate = 128000): Promise<Buffer> {
  const enc = await Mp3Encoder.create(format, bitRate);
  return Buffer.concat([enc.encode(mixChannels(pcm, format.channels, enc.format.channels)), enc.flush()]);
}

type MpegDecoderLike = {
  ready: Promise<void>;
  decode(data: Uint8Array): { channelData: Float32Array[]; samplesDecoded: number; sampleRate: number };
  free(): void;
};

/** Streaming MP3 decoder (mpg123 in WASM): feed any slices of the stream, get PCM s16le back. */
export class Mp3Decoder {
  format: PcmFormat | undefined;
  private constructor(private readonly dec: MpegDecoderLike) {}

  static async create(): Promise<Mp3Decoder> {
    const { MPEGDecoder } = (await import('mpg123-decoder')) as unknown as {
      MPEGDecoder: new (o?: object) => MpegDecoderLike;
    };
    const dec = new MPEGDecoder();
    await dec.ready;
    return new Mp3Decoder(dec);
  }

  private mono: boolean | undefined;

  decode(bytes: Uint8Array): Buffer {
    if (bytes.length === 0) return Buffer.alloc(0);
    this.mono ??= mp3IsMono(bytes);
    const r = this.dec.decode(bytes);
    if (!r.samplesDecoded) return Buffer.alloc(0);
    // mpg123 hands mono streams back as two equal channels
    const channels = this.mono ? 1 : r.channelData.length;
    this.format ??= { sampleRate: r.sampleRate, channels };
    const out = new Int16Array(r.samplesDecoded * channels);
    for (let i = 0; i < r.samplesDecoded; i++)
      for (let c = 0; c < channels; c++) out[i * channels + c] = floatToS16(r.channelData[c]![i]!);
    return bufferOf(out);
  }

  free(): void {
    this.dec.free();
  }
}

/** Channel mode of the first MPEG audio frame header in `b` (after an ID3 tag); undefined if none seen. */
export function mp3IsMono(b: Uint8Array): boolean | undefined {
  let i = 0;
  if (b.length >= 10 && b[0] === 0x49 && b[1] === 0x44 && b[2] === 0x33) {
    i = 10 + ((b[6]! & 0x7f) << 21) + ((b[7]! & 0x7f) << 14) + ((b[8]! & 0x7f) << 7) + (b[9]! & 0x7f);
  }
  for (; i + 3 < b.length; i++) {
    if (b[i] === 0xff && (b[i + 1]! & 0xe0) === 0xe0 && (b[i + 1]! & 0x06) !== 0 && (b[i + 2]! & 0xf0) !== 0xf0)
      return b[i + 3]! >> 6 === 3;
  }
  return undefined;
}

/** Length in bytes of the MPEG audio frame whose header starts at b[i], or 0 when it is not a valid header. */
function mp3FrameLength(b: Uint8Array, i: number): number {
  if (i + 3 >= b.length || b[i] !== 0xff || (b[i + 1]! & 0xe0) !== 0xe0) return 0;
  const version = (b[i + 1]! >> 3) & 3; // 0: 2.5, 2: 2, 3: 1
  const layer = (b[i + 1]! >> 1) & 3; // 1: III, 2: II, 3: I
  const brIdx = b[i + 2]! >> 4;
  const srIdx = (b[i + 2]! >> 2) & 3;
  if (version === 1 || layer === 0 || brIdx === 0 || brIdx === 15 || srIdx === 3) return 0;
  const padding = (b[i + 2]! >> 1) & 1;
  const v1 = version === 3;
  const table =
    layer === 3
      ? v1
        ? [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
        : [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
      : layer === 2
        ? v1
          ? [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
          : [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        : v1
          ? [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
          : [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
  const bitrate = table[brIdx]! * 1000;
  const rate = [44100, 48000, 32000][srIdx]! / (v1 ? 1 : version === 2 ? 2 : 4);
  if (layer === 3) return Math.floor((12 * bitrate) / rate + padding) * 4;
  return Math.floor(((layer === 1 && !v1 ? 72 : 144) * bitrate) / rate) + padding;
}

/** An ID3 tag, or a valid MPEG audio frame header (followed by another one when the bytes reach that far). */
export function isMp3(head: Uint8Array): boolean {
  if (head.length >= 3 && head[0] === 0x49 && head[1] === 0x44 && head[2] === 0x33) return true; // ID3
  const len = mp3FrameLength(head, 0);
  if (!len) return false;
  return head.length < len + 4 || mp3FrameLength(head, len) > 0;
}

export async function decodeMp3(bytes: Uint8Array): Promise<{ pcm: Buffer; format: PcmFormat }> {
  const d = await Mp3Decoder.create();
  try {
    const pcm = d.decode(bytes);
    if (!d.format) throw new Error('no MP3 frames found');
    return { pcm, format: d.format };
  } finally {
    d.free();
  }
}

// ---------------------------------------------------------------------------------------------- whole files / streams

export interface RawHint {
  /** how headerless bytes are coded (default pcm) */
  encoding?: Encoding;
  sampleRate?: number;
  channels?: number;
}

/** Decode a whole audio file (WAV, MP3, or raw bytes described by `hint`) to PCM s16le. */
export async function decodeAudio(
  bytes: Uint8Array,
  hint: RawHint & { codec?: Codec } = {},
): Promise<{ pcm: Buffer; format: PcmFormat }> {
  if (hint.codec === 'wav' || (!hint.codec && isWav(bytes))) {
    const info = parseWavHeader(bytes);
    if (!info) throw new Error('truncated WAV file');
    const end =
      info.dataLength === undefined ? bytes.length : Math.min(bytes.length, info.dataOffset + info.dataLength);
    const usable = end - info.dataOffset - ((end - info.dataOffset) % info.blockAlign);
    return {
      pcm: wavSamplesToPcm(bytes.subarray(info.dataOffset, info.dataOffset + usable), info.sample),
      format: info.format,
    };
  }
  if (hint.codec === 'mp3' || (!hint.codec && !hint.encoding && isMp3(bytes))) return decodeMp3(bytes);
  const encoding: Encoding = hint.codec === 'mulaw' || hint.codec === 'alaw' ? hint.codec : (hint.encoding ?? 'pcm');
  const format = { sampleRate: hint.sampleRate ?? 16000, channels: hint.channels ?? 1 };
  return {
    pcm: decodeSamples(encoding === 'pcm' ? bytes.subarray(0, bytes.length - (bytes.length % 2)) : bytes, encoding),
    format,
  };
}

/** Encode PCM s16le as a whole file in a codec. */
export async function encodeAudio(
  pcm: Uint8Array,
  format: PcmFormat,
  codec: Codec,
  opts: { bitRate?: number } = {},
): Promise<Buffer> {
  switch (codec) {
    case 'wav':
      return encodeWav(pcm, format);
    case 'pcm':
      return Buffer.from(pcm);
    case 'mulaw':
      return mulawEncode(pcm);
    case 'alaw':
      return alawEncode(pcm);
    case 'mp3':
      return encodeMp3(pcm, format, opts.bitRate);
  }
}

/**
 * Streaming decoder of one codec's byte stream (TTS audio as it arrives) to PCM s16le. WAV headers are
 * stripped (even when split across chunks), odd bytes carried over, MP3 decoded frame by frame.
 */
export interface StreamDecoder {
  /** the PCM format, known once the first bytes were seen (WAV header / first MP3 frame) */
  readonly format: PcmFormat | undefined;
  push(bytes: Uint8Array): Buffer;
  end(): Buffer;
}

export async function createStreamDecoder(codec: Codec, declared: PcmFormat): Promise<StreamDecoder> {
  if (codec === 'mp3') {
    const d = await Mp3Decoder.create();
    return {
      get format() {
        return d.format;
      },
      push: (b) => d.decode(b),
      end: () => {
        d.free();
        return Buffer.alloc(0);
      },
    };
  }
  if (codec === 'mulaw' || codec === 'alaw') {
    return { format: declared, push: (b) => decodeSamples(b, codec), end: () => Buffer.alloc(0) };
  }
  // pcm and wav: carry odd bytes; wav strips its header first
  let head: Buffer | undefined = codec === 'wav' ? Buffer.alloc(0) : undefined;
  let sample: WavSampleFormat = 's16';
  let blockAlign = 2 * declared.channels;
  let format: PcmFormat | undefined = codec === 'pcm' ? declared : undefined;
  let carry = Buffer.alloc(0);
  return {
    get format() {
      return format;
    },
    push(bytes) {
      let b: Buffer = Buffer.from(bytes);
      if (head) {
        head = Buffer.concat([head, b]);
        const info = parseWavHeader(head);
        if (!info) return Buffer.alloc(0);
        format = info.format;
        sample = info.sample;
        blockAlign = info.blockAlign;
        b = head.subarray(info.dataOffset);
        head = undefined;
      }
      const all = carry.length ? Buffer.concat([carry, b]) : b;
      const usable = all.length - (all.length % blockAlign);
      carry = Buffer.from(all.subarray(usable));
      return wavSamplesToPcm(all.subarray(0, usable), sample);
    },
    end: () => Buffer.alloc(0),
  };
}
