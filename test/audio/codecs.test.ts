import { describe, expect, it } from 'vitest';
import { fullOr } from '../helpers/full.js';
import { Readable } from 'node:stream';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Resampler,
  alawDecode,
  alawEncode,
  bufferOf,
  createStreamDecoder,
  decodeAudio,
  encodeMp3,
  encodeWav,
  isMp3,
  mixChannels,
  mulawDecode,
  mulawEncode,
  parseWavHeader,
  resample,
  wavHeader,
} from 'svc-formats/audio-codecs';
import { openSource, readAllPcm } from '../../src/audio/source.js';
import { openSink } from '../../src/audio/sink.js';
import { Pacer } from '../../src/audio/pacing.js';
import { goertzel, synthesize, textToTones, toFloat, tonesToText } from 'svc-emulator/tones';
import { voicedSegments } from 'svc-emulator/vad';

function sine(freq: number, rate: number, ms: number, amp = 0.5): Buffer {
  const n = Math.round((rate * ms) / 1000);
  const s = new Int16Array(n);
  for (let i = 0; i < n; i++) s[i] = Math.round(amp * 32767 * Math.sin((2 * Math.PI * freq * i) / rate));
  return bufferOf(s);
}

const dir = mkdtempSync(join(tmpdir(), 'svc-audio-'));

describe('codecs', () => {
  it('writes and parses WAV headers, streamed (unknown size) and final', () => {
    const pcm = sine(440, 16000, 100);
    const wav = encodeWav(pcm, { sampleRate: 16000, channels: 1 });
    expect(wav.length).toBe(44 + pcm.length);
    expect(parseWavHeader(wav)).toEqual({
      format: { sampleRate: 16000, channels: 1 },
      sample: 's16',
      blockAlign: 2,
      dataOffset: 44,
      dataLength: pcm.length,
    });
    const streamed = wavHeader({ sampleRate: 8000, channels: 2 });
    expect(parseWavHeader(streamed)!.dataLength).toBeUndefined();
    expect(parseWavHeader(wavHeader({ sampleRate: 8000, channels: 1 }, 10, 'mulaw'))!.sample).toBe('mulaw');
    expect(parseWavHeader(wav.subarray(0, 30))).toBeUndefined();
    expect(() => parseWavHeader(Buffer.from('not a wave file at all'))).toThrow(/RIFF/);
  });

  it('mu-law and A-law round trip within the G.711 quantization error', () => {
    const pcm = sine(1000, 8000, 50);
    const s = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);
    for (const [enc, dec] of [
      [mulawEncode, mulawDecode],
      [alawEncode, alawDecode],
    ] as const) {
      const coded = enc(pcm);
      expect(coded.length).toBe(s.length);
      const back = dec(coded);
      const b = new Int16Array(back.buffer, back.byteOffset, back.length / 2);
      let sig = 0;
      let err = 0;
      for (let i = 0; i < s.length; i++) {
        sig += s[i]! ** 2;
        err += (s[i]! - b[i]!) ** 2;
      }
      // G.711 keeps about 38 dB of signal-to-quantization-noise on a loud sine
      expect(10 * Math.log10(sig / err)).toBeGreaterThan(30);
    }
  });

  it('resamples in chunks exactly as in one piece, and keeps the frequency', () => {
    const pcm = sine(1000, 48000, 500);
    const whole = resample(pcm, 48000, 16000, 1);
    const r = new Resampler(48000, 16000, 1);
    const parts: Buffer[] = [];
    for (let i = 0; i < pcm.length; i += 1234) parts.push(r.push(pcm.subarray(i, i + 1234)));
    expect(Buffer.concat(parts).equals(whole)).toBe(true);
    expect(whole.length / 2).toBeGreaterThanOrEqual(7999);
    expect(whole.length / 2).toBeLessThanOrEqual(8000);
    const x = toFloat(whole);
    const at = (f: number) => goertzel(x, 0, 4000, f, 16000);
    expect(at(1000)).toBeGreaterThan(100 * at(1500));
    const up = resample(sine(300, 8000, 100), 8000, 44100, 1);
    expect(Math.abs(up.length / 2 - 4410)).toBeLessThanOrEqual(6);
  });

  it('mixes channels down by averaging and up by copying', () => {
    const stereo = bufferOf(Int16Array.from([100, 300, -200, 0]));
    expect([...new Int16Array(mixChannels(stereo, 2, 1).buffer.slice(0))].slice(0, 2)).toEqual([200, -100]);
    const up = mixChannels(bufferOf(Int16Array.from([5, 7])), 1, 2);
    expect([...new Int16Array(up.buffer, up.byteOffset, 4)]).toEqual([5, 5, 7, 7]);
  });

  it(
    'encodes MP3 with lamejs and decodes it with mpg123 (also at a low bit rate where LAME changes ' + 'the rate)',
    async () => {
      for (const [rate, kbps] of [
        [24000, 128000],
        [24000, 32000],
        [8000, 32000],
      ] as const) {
        const mp3 = await encodeMp3(sine(1000, rate, 500), { sampleRate: rate, channels: 1 }, kbps);
        expect(isMp3(mp3)).toBe(true);
        const { pcm, format } = await decodeAudio(mp3);
        expect(format.channels).toBe(1);
        const x = toFloat(pcm);
        const n = Math.round(format.sampleRate * 0.2);
        expect(goertzel(x, n, n, 1000, format.sampleRate)).toBeGreaterThan(
          50 * goertzel(x, n, n, 1700, format.sampleRate),
        );
      }
      expect(isMp3(mulawEncode(Buffer.alloc(8000)))).toBe(false); // mu-law silence is 0xFF bytes
    },
  );

  it('stream-decodes WAV split anywhere, header included', async () => {
    const pcm = sine(500, 16000, 100);
    const wav = Buffer.concat([wavHeader({ sampleRate: 16000, channels: 1 }), pcm]);
    const d = await createStreamDecoder('wav', { sampleRate: 24000, channels: 1 });
    const out: Buffer[] = [];
    for (let i = 0; i < wav.length; i += 7) out.push(d.push(wav.subarray(i, i + 7)));
    expect(Buffer.concat(out).equals(pcm)).toBe(true);
    expect(d.format).toEqual({ sampleRate: 16000, channels: 1 });
  });
});

describe('tones (the emulator voice)', () => {
  const text = 'hello world, Grüße! 123 ✓';
  // MP3 (lamejs, in JavaScript: ~0.2 s of CPU a rate) at every rate in the full run, at the lowest and the highest in
  // the others (test/helpers/full.ts)
  const RATES = [8000, 16000, 22050, 24000, 44100, 48000];
  const MP3_RATES = fullOr(RATES, [8000, 48000]);
  const through = `through mu-law, A-law, resampling; through MP3 at ${MP3_RATES.length}`;
  it(`round-trips text at every rate, ${through}`, async () => {
    for (const rate of RATES) {
      const pcm = textToTones(text, rate);
      expect(tonesToText(pcm, rate)).toBe(text);
      expect(tonesToText(mulawDecode(mulawEncode(pcm)), rate)).toBe(text);
      expect(tonesToText(alawDecode(alawEncode(pcm)), rate)).toBe(text);
      expect(tonesToText(resample(pcm, rate, 8000), 8000)).toBe(text);
      if (!MP3_RATES.includes(rate)) continue;
      const mp3 = await decodeAudio(await encodeMp3(pcm, { sampleRate: rate, channels: 1 }, 32000));
      expect(tonesToText(mp3.pcm, mp3.format.sampleRate)).toBe(text);
    }
  });

  it('survives speed 0.7 to 1.5 and gives character timings', () => {
    for (const speed of [0.7, 1, 1.5])
      expect(tonesToText(textToTones('Speed test.', 16000, { speed }), 16000)).toBe('Speed test.');
    const { chars } = synthesize('ab', 24000);
    expect(chars.map((c) => c.char)).toEqual(['a', 'b']);
    expect(chars[0]!.start).toBeCloseTo(0.06, 2);
    expect(chars[1]!.start).toBeGreaterThan(chars[0]!.end);
  });

  it('does not read a plain tone or noise as text; VAD finds the voiced parts', () => {
    const noise = bufferOf(Int16Array.from({ length: 16000 }, () => Math.round((Math.random() - 0.5) * 20000)));
    expect(tonesToText(noise, 16000)).toBe('');
    const clip = Buffer.concat([
      Buffer.alloc(8000 * 2),
      sine(220, 16000, 600),
      Buffer.alloc(16000),
      sine(330, 16000, 300),
    ]);
    const segs = voicedSegments(clip, 16000);
    expect(segs.map((s) => [s.start, s.end])).toEqual([
      [0.5, 1.1],
      [1.6, 1.9],
    ]);
  });
});

describe('sources and sinks', () => {
  it('reads WAV at another rate and channel count, in frames of the requested size', async () => {
    const stereo = mixChannels(textToTones('frames', 48000), 1, 2);
    const path = join(dir, 'in.wav');
    writeFileSync(path, encodeWav(stereo, { sampleRate: 48000, channels: 2 }));
    const src = await openSource(path, { sampleRate: 16000 });
    const frames: Buffer[] = [];
    for await (const f of src.frames(100)) frames.push(f);
    expect(src.inputFormat).toEqual({ sampleRate: 48000, channels: 2 });
    expect(frames.slice(0, -1).every((f) => f.length === 3200)).toBe(true);
    expect(tonesToText(Buffer.concat(frames), 16000)).toBe('frames');
  });

  it('reads raw mu-law from stdin as declared, and muting yields silence at the same length', async () => {
    const pcm = textToTones('mu', 8000);
    const src = await openSource('-', {
      sampleRate: 8000,
      encoding: 'mulaw',
      stdin: Readable.from([mulawEncode(pcm)]),
    });
    expect(tonesToText(await readAllPcm(src), 8000)).toBe('mu');
    const muted = await openSource('-', {
      sampleRate: 8000,
      encoding: 'mulaw',
      stdin: Readable.from([mulawEncode(pcm)]),
    });
    muted.setMuted(true);
    const all = await readAllPcm(muted);
    expect(all.length).toBe(pcm.length);
    expect(all.every((b) => b === 0)).toBe(true);
  });

  it('reads MP3 files by their frames', async () => {
    const path = join(dir, 'in.mp3');
    writeFileSync(path, await encodeMp3(textToTones('mp3 in', 24000), { sampleRate: 24000, channels: 1 }, 64000));
    const src = await openSource(path, { sampleRate: 16000 });
    expect(tonesToText(await readAllPcm(src), 16000)).toBe('mp3 in');
  });

  it('writes WAV files with their sizes patched, and mu-law by extension', async () => {
    const pcm = textToTones('sink', 16000);
    const wavPath = join(dir, 'out.wav');
    const sink = await openSink(wavPath, { format: { sampleRate: 16000, channels: 1 } });
    for (let i = 0; i < pcm.length; i += 1000) await sink.write(pcm.subarray(i, i + 1000));
    await sink.end();
    const { readFileSync } = await import('node:fs');
    const wav = readFileSync(wavPath);
    expect(parseWavHeader(wav)!.dataLength).toBe(pcm.length);
    expect(tonesToText(wav.subarray(44), 16000)).toBe('sink');
    const ulawPath = join(dir, 'out.ulaw');
    const u = await openSink(ulawPath, { format: { sampleRate: 16000, channels: 1 } });
    await u.write(pcm);
    await u.end();
    expect(tonesToText(mulawDecode(readFileSync(ulawPath)), 16000)).toBe('sink');
  });

  it('paces ticks on a fixed schedule from the start (no drift from late ticks)', async () => {
    let now = 1000;
    const p = new Pacer(100, () => now);
    expect(p.nextDue).toBe(1000);
    await p.tick();
    now = 1250; // the consumer was late
    expect(p.nextDue).toBe(1100);
    await p.tick();
    await p.tick();
    expect(p.nextDue).toBe(1300);
  });
});
