// What an input file or stream holds, from its first bytes: the containers svc decodes itself (WAV, MP3), the
// ones it hands to `ffmpeg` (FLAC, Ogg, MP4/M4A, AAC, Matroska/WebM, AIFF, …), text (a transcript or a note named
// .wav by mistake), or nothing recognisable (headerless audio: raw samples in the given encoding).
import { isMp3, isWav, parseWavHeader } from 'svc-formats/audio-codecs';
import { UsageError } from '../core/errors.js';

export type Sniffed =
  | { kind: 'wav' | 'mp3'; name: string }
  /** a container svc does not decode itself; `upload` is its name in the API's `audio_format` list, when listed */
  | { kind: 'container'; name: string; upload?: string }
  | { kind: 'text'; name: 'text' }
  | { kind: 'raw'; name: 'headerless audio' };

/** Bytes to read before deciding (telling MP3 from raw samples needs two frame headers). */
export const SNIFF_BYTES = 4096;

const ascii = (b: Uint8Array, from: number, to: number) => Buffer.from(b.subarray(from, to)).toString('latin1');

export function sniffAudio(head: Uint8Array): Sniffed {
  if (isWav(head)) return { kind: 'wav', name: 'WAV' };
  const s4 = ascii(head, 0, 4);
  if (s4 === 'fLaC') return { kind: 'container', name: 'FLAC', upload: 'flac' };
  if (s4 === 'OggS') {
    const page = ascii(head, 0, Math.min(head.length, 200));
    if (page.includes('OpusHead')) return { kind: 'container', name: 'Ogg Opus', upload: 'opus' };
    if (page.includes('\u0001vorbis')) return { kind: 'container', name: 'Ogg Vorbis', upload: 'ogg' };
    if (page.includes('FLAC')) return { kind: 'container', name: 'Ogg FLAC', upload: 'ogg' };
    return { kind: 'container', name: 'Ogg', upload: 'ogg' };
  }
  if (head.length >= 12 && ascii(head, 4, 8) === 'ftyp') {
    const brand = ascii(head, 8, 12);
    return /^M4[AB] /.test(brand)
      ? { kind: 'container', name: 'M4A', upload: 'm4a' }
      : { kind: 'container', name: `MP4 (${brand.trim()})`, upload: 'mp4' };
  }
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3)
    return { kind: 'container', name: 'Matroska/WebM', upload: 'mkv' };
  if (s4 === 'FORM' && /^AIF[FC]$/.test(ascii(head, 8, 12))) return { kind: 'container', name: 'AIFF' };
  if (s4 === 'caff') return { kind: 'container', name: 'CAF' };
  if (ascii(head, 0, 5) === '#!AMR') return { kind: 'container', name: 'AMR' };
  if (head[0] === 0x30 && head[1] === 0x26 && head[2] === 0xb2 && head[3] === 0x75)
    return { kind: 'container', name: 'WMA/ASF' };
  if (s4 === 'RIFF') return { kind: 'container', name: `RIFF ${ascii(head, 8, 12).trim()}` };
  if (isMp3(head)) return { kind: 'mp3', name: 'MP3' };
  // ADTS AAC: 12 sync bits and layer 00 (MP3 frames have a non-zero layer)
  if (head[0] === 0xff && head.length > 1 && (head[1]! & 0xf6) === 0xf0)
    return { kind: 'container', name: 'AAC (ADTS)', upload: 'aac' };
  if (looksLikeText(head)) return { kind: 'text', name: 'text' };
  return { kind: 'raw', name: 'headerless audio' };
}

/**
 * Text, not audio: printable UTF-8 (tabs and line breaks allowed) and no NUL. Headerless 16-bit audio has NUL or
 * high bytes almost at once (silence is all zeros), so a few hundred printable bytes in a row is text.
 */
export function looksLikeText(head: Uint8Array): boolean {
  const n = Math.min(head.length, 1024);
  if (n < 16) return false;
  let printable = 0;
  for (let i = 0; i < n; i++) {
    const c = head[i]!;
    if (c === 0) return false;
    if (c === 9 || c === 10 || c === 13 || (c >= 0x20 && c < 0x7f)) printable++;
  }
  if (printable / n < 0.95) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, n - 4)); // the cut may split a character
    return true;
  } catch {
    return false;
  }
}

/**
 * Audio that can carry no sound, refused before connecting (exit 2): empty input, or a WAV whose header says 0 Hz
 * or 0 channels (the service would fail on it, or a session would wait for speech that never comes).
 */
export function checkAudioHead(head: Uint8Array, label: string, flag: string): void {
  if (head.length === 0) throw new UsageError(`${flag}: ${label} is empty: there is no audio to send`);
  if (!isWav(head)) return;
  try {
    // it refuses a header that says 0 Hz or 0 channels (a header longer than the bytes looked at: the decoder judges)
    parseWavHeader(head);
  } catch (err) {
    throw new UsageError(`${flag}: ${label} is not a readable WAV file (${(err as Error).message})`);
  }
}
