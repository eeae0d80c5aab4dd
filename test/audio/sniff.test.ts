// The container of input audio, from its first bytes (made by ffmpeg from one clip, plus text and raw samples).
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { encodeWav } from 'svc-formats/audio-codecs';
import { looksLikeText, sniffAudio } from '../../src/audio/sniff.js';
import { textToTones } from 'svc-emulator/tones';
import { tempDir } from '../helpers/files.js';
import { needTools } from '../helpers/tools.js';

const dir = tempDir('svc-sniff-');
const files: Record<string, Buffer> = {};
beforeAll(async () => {
  needTools('ffmpeg');
  const wav = join(dir, 'a.wav');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(wav, encodeWav(textToTones('sniff me', 16000), { sampleRate: 16000, channels: 1 }));
  for (const ext of ['flac', 'ogg', 'opus', 'm4a', 'webm', 'aiff', 'mp3', 'aac']) {
    await execa('ffmpeg', ['-loglevel', 'error', '-y', '-i', wav, join(dir, `a.${ext}`)]);
    files[ext] = readFileSync(join(dir, `a.${ext}`));
  }
  files.wav = readFileSync(wav);
}, 60_000);

describe('sniffAudio', () => {
  const expected: [string, object][] = [
    ['wav', { kind: 'wav' }],
    ['mp3', { kind: 'mp3' }],
    ['flac', { kind: 'container', name: 'FLAC', upload: 'flac' }],
    ['ogg', { kind: 'container', name: 'Ogg Vorbis', upload: 'ogg' }],
    ['opus', { kind: 'container', name: 'Ogg Opus', upload: 'opus' }],
    ['m4a', { kind: 'container', name: 'M4A', upload: 'm4a' }],
    ['webm', { kind: 'container', name: 'Matroska/WebM', upload: 'mkv' }],
    ['aiff', { kind: 'container', name: 'AIFF' }],
    ['aac', { kind: 'container', name: 'AAC (ADTS)', upload: 'aac' }],
  ];
  for (const [ext, want] of expected)
    it(`${ext}`, () => expect(sniffAudio(files[ext]!.subarray(0, 4096))).toMatchObject(want));

  it('text (even named .wav) is text; raw samples and silence are headerless audio', () => {
    expect(
      sniffAudio(Buffer.from('WEBVTT\n\n00:00.000 --> 00:01.000\nhello there, this is a transcript\n'.repeat(20))),
    ).toEqual({ kind: 'text', name: 'text' });
    expect(sniffAudio(Buffer.alloc(4096))).toEqual({ kind: 'raw', name: 'headerless audio' });
    expect(sniffAudio(textToTones('raw tones', 16000).subarray(0, 4096))).toEqual({
      kind: 'raw',
      name: 'headerless audio',
    });
    expect(looksLikeText(Buffer.from('short'))).toBe(false);
    expect(looksLikeText(Buffer.from([0xff, 0xfe, ...Buffer.from('not utf-8 text at all, really not')]))).toBe(false);
  });
});
