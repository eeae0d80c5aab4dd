import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcProcess, svcBytes } from '../../helpers/subprocess.js';
import { tempDir } from '../../helpers/files.js';
import { decodeAudio, mulawDecode, parseWavHeader } from 'svc-formats/audio-codecs';
import { tonesToText } from 'svc-emulator/tones';
import { needSpeaker } from '../../helpers/tools.js';

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-tts-');
});
afterAll(() => emu.close());

/** Run the CLI with stdout kept as bytes (audio in a pipe). */
const bytesOf = (args: string[]) => svcBytes(args, { emu });

describe('svc tts say', () => {
  it('speaks over the WebSocket into a WAV that stt transcribe reads back', async () => {
    const out = join(dir, 'hello.wav');
    emu.clearRequests();
    const r = await svcInProcess(['tts', 'say', 'hello world', '-o', out], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/wrote .*hello\.wav \(wav, 1\.\d\d s, \d+ bytes\)/);
    const ws = emu.requests().find((q) => q.path === '/v1/tts')!;
    expect(ws.method).toBe('WS');
    expect(ws.query).toMatchObject({ codec: 'wav', language: 'auto' });
    const wav = readFileSync(out);
    const info = parseWavHeader(wav)!;
    expect(info.format).toEqual({ sampleRate: 24000, channels: 1 });
    expect(info.dataLength).toBe(wav.length - 44); // streamed header patched at the end
    const t = await svcInProcess(['stt', 'transcribe', out], { emu });
    expect(t.exitCode).toBe(0);
    expect(t.stdout).toBe('hello world\n');
  });

  it('--rest gives the same audio, from JSON with base64 or from a raw audio reply', async () => {
    const ws = join(dir, 'ws.wav');
    const rest = join(dir, 'rest.wav');
    const raw = join(dir, 'raw.wav');
    await svcInProcess(['tts', 'say', 'same bytes', '-o', ws], { emu });
    emu.clearRequests();
    expect((await svcInProcess(['tts', 'say', 'same bytes', '--rest', '-o', rest], { emu })).exitCode).toBe(0);
    expect(JSON.parse(emu.requests()[0]!.body!)).toEqual({
      text: 'same bytes',
      language: 'auto',
      output_format: { codec: 'wav' },
    });
    emu.core.settings.ttsRawReplies = 1;
    try {
      expect((await svcInProcess(['tts', 'say', 'same bytes', '--rest', '-o', raw], { emu })).exitCode).toBe(0);
    } finally {
      emu.core.settings.ttsRawReplies = 0;
    }
    expect(readFileSync(rest).equals(readFileSync(ws))).toBe(true);
    expect(readFileSync(raw).equals(readFileSync(ws))).toBe(true);
  });

  it('mu-law at 8 kHz round-trips through a headerless file', async () => {
    const out = join(dir, 'hello.ulaw');
    const r = await svcInProcess(['tts', 'say', 'hello world', '--codec', 'ulaw', '--sample-rate', '8000', '-o', out], {
      emu,
    });
    expect(r.exitCode).toBe(0);
    const bytes = readFileSync(out);
    expect(tonesToText(mulawDecode(bytes), 8000)).toBe('hello world');
    const t = await svcInProcess(['stt', 'transcribe', out, '--sample-rate', '8000'], { emu });
    expect(t.stdout).toBe('hello world\n');
  });

  it('writes MP3 bytes to stdout in a pipe, every flag on the wire', async () => {
    emu.clearRequests();
    const r = await bytesOf([
      'tts',
      'say',
      'pipe it',
      '--voice',
      'ara',
      '--language',
      'EN',
      '--bit-rate',
      '64000',
      '--speed',
      '1.2',
      '--optimize-streaming-latency',
      '1',
      '--text-normalization',
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    const { pcm, format } = await decodeAudio(r.stdout);
    expect(tonesToText(pcm, format.sampleRate)).toBe('pipe it');
    expect(emu.requests()[0]!.query).toEqual({
      voice: 'ara',
      language: 'en',
      codec: 'mp3',
      bit_rate: '64000',
      speed: '1.2',
      optimize_streaming_latency: '1',
      text_normalization: 'true',
    });
  });

  it('reads the text from stdin with -', async () => {
    const out = join(dir, 'stdin.wav');
    const r = await svcInProcess(['tts', 'say', '-', '-o', out], { emu, input: 'from stdin\n' });
    expect(r.exitCode).toBe(0);
    expect((await svcInProcess(['stt', 'transcribe', out], { emu })).stdout).toBe('from stdin\n');
  });

  it('--timestamps writes the character timings (file) or lists them on stderr', async () => {
    const file = join(dir, 'times.json');
    const r = await svcInProcess(['tts', 'say', 'Hi!', '--timestamps', file, '-o', join(dir, 't.mp3')], { emu });
    expect(r.exitCode).toBe(0);
    const ts = JSON.parse(readFileSync(file, 'utf8'));
    expect(ts.graph_chars).toEqual(['H', 'i', '!']);
    expect(ts.graph_times[0][0]).toBeCloseTo(0.06, 2);
    expect(ts.graph_times[1][0]).toBeGreaterThan(ts.graph_times[0][1]);
    const rest = await svcInProcess(['tts', 'say', 'ok', '--rest', '--timestamps', '-o', join(dir, 't2.wav')], { emu });
    expect(rest.stderr.split('\n').filter((l) => l.includes('\t'))).toEqual(['0.06\t0.12\t"o"', '0.14\t0.20\t"k"']);
  });

  it('--json with -o prints what was written', async () => {
    const out = join(dir, 'j.pcm');
    const r = await svcInProcess(['tts', 'say', 'json', '-o', out, '--json'], { emu });
    expect(JSON.parse(r.stdout)).toMatchObject({ output: out, codec: 'pcm', bytes: readFileSync(out).length });
  });

  it('plays through the real speaker package into ALSA (file plugin) and the sound decodes to the text', async () => {
    needSpeaker();
    const capture = join(dir, 'played.raw');
    const conf = join(dir, 'asound-file.conf');
    writeFileSync(
      conf,
      `pcm.!default { type file; slave.pcm { type null }; file "|cat >> ${capture}"; format "raw" ` +
        `}\nctl.!default { type hw card 0 }\n`,
    );
    const r = await svcProcess(['tts', 'say', 'played aloud', '--play'], { emu, env: { ALSA_CONFIG_PATH: conf } });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/played pcm, 1\.\d\d s/);
    for (let i = 0; i < 50 && !existsSync(capture); i++) await new Promise((res) => setTimeout(res, 20));
    const played = readFileSync(capture);
    expect(played.length).toBeGreaterThan(24000); // > 0.5 s at 24 kHz s16
    expect(tonesToText(played, 24000)).toBe('played aloud');
  });

  it('reports a custom voice the service does not know (exit 1, the service message)', async () => {
    const r = await svcInProcess(['tts', 'say', 'x', '--voice', 'zz9zz9zz', '-o', join(dir, 'n.wav')], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/voice.*zz9zz9zz/);
  });

  const bad: [string[], RegExp][] = [
    [['--speed', '1.6'], /--speed: 1\.6 is not allowed: a number from 0\.7 to 1\.5/],
    [['--speed', '0.69'], /--speed: 0\.69 is not allowed/],
    [['--codec', 'flac'], /--codec: flac is not allowed: one of mp3, wav, pcm, mulaw \(or ulaw\), alaw/],
    [['--sample-rate', '12000'], /--sample-rate: 12000 is not allowed: one of 8000, 16000, 22050, 24000, 44100, 48000/],
    [['--bit-rate', '100000'], /--bit-rate: 100000 is not allowed: one of 32000, 64000, 96000, 128000, 192000/],
    [['--bit-rate', '64000', '--codec', 'wav'], /--bit-rate: 64000 is not allowed: only with --codec mp3/],
    [
      ['--language', 'en_US'],
      /--language: en_US is not allowed: a BCP-47 language tag \(e\.g\. en, nl, pt-BR\) or auto; supported: auto, en, ar-EG/,
    ],
    [
      ['--voice', 'nobody'],
      /--voice: nobody is not allowed: a built-in voice \(eve, ara, rex, sal, leo, any case\) or a custom voice id/,
    ],
    [['-o', 'x.ogg'], /-o: x\.ogg is not allowed: a name svc can write: \.mp3, \.wav, \.pcm\/\.raw, \.ulaw, \.alaw/],
    [
      ['--optimize-streaming-latency', '2'],
      /--optimize-streaming-latency: 2 is not allowed: a whole number from 0 to 1/,
    ],
    [
      ['--optimize-streaming-latency', '0.5'],
      /--optimize-streaming-latency: 0\.5 is not allowed: a whole number from 0 to 1/,
    ],
    [['--play', '-o', 'x.wav'], /--play.*not together with -o/],
  ];
  for (const [flags, message] of bad) {
    it(`rejects ${flags.join(' ')} before sending anything (exit 2)`, async () => {
      emu.clearRequests();
      const args = ['tts', 'say', 'hello', ...flags];
      if (!flags.includes('-o')) args.push('-o', join(dir, 'never.mp3'));
      const r = await svcInProcess(args, { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('rejects text over 60,000 characters (exit 2, nothing sent)', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['tts', 'say', '-', '-o', join(dir, 'long.mp3')], { emu, input: 'a'.repeat(60_001) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/TEXT: 60001 characters is not allowed: at most 60000 characters/);
    expect(emu.requests()).toHaveLength(0);
  });
});
