// Checks a reference clip before it is uploaded: readable audio of at most the given seconds. WAV is read from its
// header, MP3 from its frame headers, FLAC from STREAMINFO; other containers go to `ffprobe` when it is installed,
// and are otherwise trusted by their extension (the server checks again).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { childEnvironment } from '../../core/environment.js';

export interface ClipInfo {
  format: string;
  contentType: string;
  /** seconds; undefined when it could not be measured (trusted by extension) */
  duration?: number;
  /** how the duration was found */
  via: 'header' | 'frames' | 'ffprobe' | 'extension';
}

const CONTENT_TYPES: Record<string, string> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  opus: 'audio/ogg',
  m4a: 'audio/mp4',
  mp4: 'audio/mp4',
  aac: 'audio/aac',
  mkv: 'audio/x-matroska',
  webm: 'audio/webm',
};
const EXT_ALIASES: Record<string, string> = { wave: 'wav', oga: 'ogg', mka: 'mkv' };
export const CLIP_EXTENSIONS = Object.keys(CONTENT_TYPES);

class Reader {
  readonly size: number;
  constructor(private fd: number) {
    this.size = fstatSync(fd).size;
  }
  read(pos: number, len: number): Buffer {
    const buf = Buffer.alloc(Math.max(0, Math.min(len, this.size - pos)));
    if (buf.length === 0) return buf;
    const n = readSync(this.fd, buf, 0, buf.length, pos);
    return buf.subarray(0, n);
  }
}

function bad(path: string, why: string): never {
  throw new UsageError(`CLIP: ${path} is not readable audio: ${why}`);
}

function sniff(head: Buffer): string | undefined {
  const ascii = (a: number, b: number) => head.subarray(a, b).toString('latin1');
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'wav';
  if (ascii(0, 4) === 'fLaC') return 'flac';
  if (ascii(0, 4) === 'OggS') return 'ogg';
  if (ascii(4, 8) === 'ftyp') return 'mp4';
  if (head.readUInt32BE(0) === 0x1a45dfa3) return 'mkv';
  if (ascii(0, 3) === 'ID3') return 'mp3';
  if (head[0] === 0xff && (head[1]! & 0xf6) === 0xf0) return 'aac'; // ADTS: layer bits 00
  if (head[0] === 0xff && (head[1]! & 0xe0) === 0xe0 && (head[1]! & 0x06) !== 0) return 'mp3';
  return undefined;
}

function wavDuration(r: Reader, path: string): number {
  let pos = 12;
  let byteRate: number | undefined;
  while (pos + 8 <= r.size) {
    const h = r.read(pos, 8);
    if (h.length < 8) break;
    const id = h.toString('latin1', 0, 4);
    const size = h.readUInt32LE(4);
    if (id === 'fmt ') {
      const fmt = r.read(pos + 8, 16);
      if (fmt.length < 16) bad(path, 'the WAV fmt chunk is cut short');
      byteRate = fmt.readUInt32LE(8);
      const channels = fmt.readUInt16LE(2);
      const rate = fmt.readUInt32LE(4);
      if (!byteRate || !channels || !rate) bad(path, 'the WAV header has no sample rate or channels');
    } else if (id === 'data') {
      if (byteRate === undefined) bad(path, 'the WAV data chunk comes before its fmt chunk');
      // streamed WAVs leave the size at 0 or 0xFFFFFFFF: use what is there
      const dataSize = size === 0 || size === 0xffffffff || pos + 8 + size > r.size ? r.size - pos - 8 : size;
      return dataSize / byteRate;
    }
    pos += 8 + size + (size % 2);
  }
  bad(path, 'no WAV data chunk');
}

const BITRATES: Record<string, number[]> = {
  // [MPEG1 L1, L2, L3] then [MPEG2/2.5 L1, L2/L3], kbit/s by index 1-14
  '1-1': [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** One MPEG audio frame header → its length in bytes and duration, or undefined when not a header. */
export function mp3Frame(h: Buffer): { bytes: number; seconds: number } | undefined {
  if (h.length < 4 || h[0] !== 0xff || (h[1]! & 0xe0) !== 0xe0) return undefined;
  const version = (h[1]! >> 3) & 3; // 3 MPEG1, 2 MPEG2, 0 MPEG2.5
  const layer = 4 - ((h[1]! >> 1) & 3); // 1, 2, 3
  const brIndex = h[2]! >> 4;
  const srIndex = (h[2]! >> 2) & 3;
  const pad = (h[2]! >> 1) & 1;
  if (version === 1 || layer === 4 || brIndex === 0 || brIndex === 15 || srIndex === 3) return undefined;
  const table = version === 3 ? `1-${layer}` : layer === 1 ? '2-1' : '2-2';
  const bitrate = BITRATES[table]![brIndex - 1]! * 1000;
  const rate = RATES[version]![srIndex]!;
  const samples = layer === 1 ? 384 : layer === 2 || version === 3 ? 1152 : 576;
  const bytes =
    layer === 1 ? (Math.floor((12 * bitrate) / rate) + pad) * 4 : Math.floor(((samples / 8) * bitrate) / rate) + pad;
  return { bytes, seconds: samples / rate };
}

function mp3Duration(r: Reader, path: string): number {
  let pos = 0;
  const id3 = r.read(0, 10);
  if (id3.toString('latin1', 0, 3) === 'ID3' && id3.length === 10) {
    const size = ((id3[6]! & 0x7f) << 21) | ((id3[7]! & 0x7f) << 14) | ((id3[8]! & 0x7f) << 7) | (id3[9]! & 0x7f);
    pos = 10 + size + (id3[5]! & 0x10 ? 10 : 0);
  }
  let frames = 0;
  let seconds = 0;
  let lost = 0;
  while (pos + 4 <= r.size) {
    const f = mp3Frame(r.read(pos, 4));
    if (!f || f.bytes < 4) {
      // resynchronise: search the next frame header byte by byte (bounded)
      if (++lost > 64 * 1024) break;
      pos++;
      continue;
    }
    lost = 0;
    frames++;
    seconds += f.seconds;
    pos += f.bytes;
  }
  if (frames < 2) bad(path, 'no MP3 frames found');
  return seconds;
}

function flacDuration(r: Reader): number | undefined {
  const b = r.read(4, 4 + 34);
  if (b.length < 38 || (b[0]! & 0x7f) !== 0) return undefined;
  const si = b.subarray(4);
  const rate = (si[10]! << 12) | (si[11]! << 4) | (si[12]! >> 4);
  const total = (si[13]! & 0x0f) * 2 ** 32 + si.readUInt32BE(14);
  return rate && total ? total / rate : undefined;
}

async function ffprobe(
  path: string,
  env: NodeJS.ProcessEnv,
): Promise<{ duration?: number; audio: boolean } | 'missing'> {
  const { execa } = await import('execa');
  const bin = env.SVC_FFPROBE || 'ffprobe';
  const r = await execa(
    bin,
    ['-v', 'error', '-show_entries', 'format=duration:stream=codec_type', '-of', 'json', path],
    // without svc's secrets: ffprobe parses the user's file (core/environment.ts)
    { reject: false, timeout: 20_000, env: childEnvironment(env), extendEnv: false },
  );
  if ((r as { code?: string }).code === 'ENOENT' || r.exitCode === undefined || r.exitCode === 127) return 'missing';
  if (r.exitCode !== 0) return { audio: false };
  try {
    const info = JSON.parse(String(r.stdout)) as {
      format?: { duration?: string };
      streams?: { codec_type?: string }[];
    };
    const audio = (info.streams ?? []).some((s) => s.codec_type === 'audio');
    const d = Number(info.format?.duration);
    return { audio, duration: Number.isFinite(d) ? d : undefined };
  } catch {
    return { audio: false };
  }
}

/** Check the clip (readable audio, at most `maxSeconds`); UsageError otherwise, nothing sent. */
export async function inspectClip(path: string, maxSeconds: number, env: NodeJS.ProcessEnv): Promise<ClipInfo> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw new UsageError(`CLIP: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (fstatSync(fd).isDirectory()) {
    closeSync(fd);
    throw new UsageError(`CLIP: ${path} is a directory, not an audio file`);
  }
  let info: ClipInfo;
  try {
    const r = new Reader(fd);
    if (r.size === 0) bad(path, 'the file is empty');
    const head = r.read(0, 16);
    const ext0 = extname(path).slice(1).toLowerCase();
    const ext = EXT_ALIASES[ext0] ?? ext0;
    const sniffed = head.length >= 12 ? sniff(head) : undefined;
    const format =
      sniffed === 'mp4' && ext === 'm4a'
        ? 'm4a'
        : sniffed === 'ogg' && ext === 'opus'
          ? 'opus'
          : sniffed === 'mkv' && ext === 'webm'
            ? 'webm'
            : (sniffed ?? ext);
    if (!(format in CONTENT_TYPES)) bad(path, `unknown format; expected one of ${CLIP_EXTENSIONS.join(', ')}`);
    const contentType = CONTENT_TYPES[format]!;
    if (format === 'wav') info = { format, contentType, duration: wavDuration(r, path), via: 'header' };
    else if (format === 'mp3') info = { format, contentType, duration: mp3Duration(r, path), via: 'frames' };
    else {
      const flac = format === 'flac' && sniffed === 'flac' ? flacDuration(r) : undefined;
      info =
        flac !== undefined
          ? { format, contentType, duration: flac, via: 'header' }
          : { format, contentType, via: 'extension' };
    }
  } finally {
    closeSync(fd);
  }
  if (info.via === 'extension') {
    const probe = await ffprobe(path, env);
    if (probe !== 'missing') {
      if (!probe.audio) bad(path, 'ffprobe finds no audio stream in it');
      info = { ...info, duration: probe.duration, via: 'ffprobe' };
    }
  }
  if (info.duration !== undefined && info.duration > maxSeconds) {
    throw new UsageError(
      `CLIP: ${basename(path)} is not allowed: a reference clip of at most ${maxSeconds} seconds (this one ` +
        `is ${info.duration.toFixed(1)} s)`,
    );
  }
  return info;
}
