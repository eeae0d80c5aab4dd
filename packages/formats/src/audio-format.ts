// Audio formats shared by sources, sinks, codecs and the voice commands. Internally audio is always PCM
// signed 16-bit little-endian, interleaved; `PcmFormat` says at which rate and with how many channels.

/** How raw samples are coded on the wire or in a headerless file. */
export type Encoding = 'pcm' | 'mulaw' | 'alaw';

/** Output codecs of text to speech (and file types of sinks). */
export type Codec = 'mp3' | 'wav' | 'pcm' | 'mulaw' | 'alaw';

export interface PcmFormat {
  sampleRate: number;
  channels: number;
}

export const CODECS: readonly Codec[] = ['mp3', 'wav', 'pcm', 'mulaw', 'alaw'];
export const SAMPLE_RATES = [8000, 16000, 22050, 24000, 44100, 48000] as const;
export const MP3_BIT_RATES = [32000, 64000, 96000, 128000, 192000] as const;

/** `ulaw` is accepted as a synonym of `mulaw`. */
export function normalizeCodec(raw: string): Codec | undefined {
  const v = raw.toLowerCase();
  if (v === 'ulaw' || v === 'u-law' || v === 'mu-law') return 'mulaw';
  if (v === 'a-law') return 'alaw';
  return (CODECS as readonly string[]).includes(v) ? (v as Codec) : undefined;
}

/** Bytes of PCM s16le for `ms` milliseconds. */
export function pcmBytes(format: PcmFormat, ms: number): number {
  return Math.round((format.sampleRate * ms) / 1000) * 2 * format.channels;
}

/** The codec a file name suggests: .wav .mp3 .pcm/.raw/.s16 .ulaw/.mulaw/.mu/.au-less .alaw/.al */
export function codecFromPath(path: string): Codec | undefined {
  const m = /\.([a-z0-9]+)$/i.exec(path);
  switch (m?.[1]?.toLowerCase()) {
    case 'wav':
    case 'wave':
      return 'wav';
    case 'mp3':
      return 'mp3';
    case 'pcm':
    case 'raw':
    case 's16':
    case 's16le':
      return 'pcm';
    case 'ulaw':
    case 'mulaw':
    case 'mu':
    case 'ul':
      return 'mulaw';
    case 'alaw':
    case 'al':
      return 'alaw';
    default:
      return undefined;
  }
}

/** Audio file extensions svc does not write (it writes wav, mp3, raw pcm, mu-law, A-law). */
const NOT_WRITTEN = [
  'ogg',
  'oga',
  'opus',
  'flac',
  'm4a',
  'mp4',
  'aac',
  'webm',
  'mka',
  'aif',
  'aiff',
  'wma',
  'amr',
  'caf',
];

/** The extension of an audio file name svc cannot write (e.g. `ogg` for x.ogg), else undefined. */
export function unwritableAudioExtension(path: string): string | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return ext && NOT_WRITTEN.includes(ext) ? ext : undefined;
}

const CONTENT_TYPES: Record<Codec, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
  mulaw: 'audio/basic',
  alaw: 'audio/alaw',
};

export function contentTypeOf(codec: Codec): string {
  return CONTENT_TYPES[codec];
}

/**
 * The codec of a `Content-Type` (audio/mpeg, audio/wav, audio/x-wav, audio/pcm, audio/L16, audio/basic, audio/mulaw,
 * audio/alaw).
 */
export function codecFromContentType(ct: string): Codec | undefined {
  const t = ct.toLowerCase().split(';')[0]!.trim();
  if (t === 'audio/mpeg' || t === 'audio/mp3') return 'mp3';
  if (t === 'audio/wav' || t === 'audio/x-wav' || t === 'audio/wave' || t === 'audio/vnd.wave') return 'wav';
  if (t === 'audio/pcm' || t === 'audio/l16' || t === 'audio/x-pcm') return 'pcm';
  if (t === 'audio/basic' || t === 'audio/mulaw' || t === 'audio/x-mulaw' || t === 'audio/pcmu' || t === 'audio/ulaw')
    return 'mulaw';
  if (t === 'audio/alaw' || t === 'audio/x-alaw' || t === 'audio/pcma') return 'alaw';
  return undefined;
}
