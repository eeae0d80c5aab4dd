import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSync, openSync, readFileSync, ftruncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';
import { encodeWav, interleave, mulawEncode } from 'svc-formats/audio-codecs';
import { textToTones } from 'svc-emulator/tones';

let emu: TestEmulator;
let dir: string;
let hello: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-stt-');
  hello = join(dir, 'hello.wav');
  const r = await svcInProcess(['tts', 'say', 'hello world. how are you?', '-o', hello], { emu });
  expect(r.exitCode).toBe(0);
});
afterAll(() => emu.close());

const silence = (rate: number, ms: number) => Buffer.alloc(Math.round((rate * ms) / 1000) * 2);

describe('svc stt transcribe', () => {
  it('prints the text in a pipe, and the reply as sent with --json', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['stt', 'transcribe', hello], { emu });
    expect(r).toMatchObject({ exitCode: 0, stdout: 'hello world. how are you?\n', stderr: '' });
    const req = emu.requests()[0]!;
    expect(req.path).toBe('/v1/stt');
    expect(String(req.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    const j = await svcInProcess(['stt', 'transcribe', hello, '--json'], { emu });
    const body = JSON.parse(j.stdout);
    expect(body).toMatchObject({ text: 'hello world. how are you?', language: '', duration: expect.any(Number) });
    expect(body.words[0]).toEqual({ text: 'hello', start: 0.06, end: 0.44, confidence: 0.99 });
  });

  it('--words lists word timings; --srt and --vtt print subtitles', async () => {
    const w = await svcInProcess(['stt', 'transcribe', hello, '--words'], { emu });
    const rows = w.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows[0]).toEqual(['0.06', '0.44', '0.99', 'hello']);
    expect(rows.map((x) => x[3])).toEqual(['hello', 'world.', 'how', 'are', 'you?']);
    const srt = await svcInProcess(['stt', 'transcribe', hello, '--srt'], { emu });
    expect(srt.stdout).toMatch(
      /^1\n00:00:00,060 --> 00:00:0\d,\d{3}\nhello world\.\n\n2\n00:00:0\d,\d{3} --> 00:00:0\d,\d{3}\nhow are you\?\n\n$/,
    );
    const vtt = await svcInProcess(['stt', 'transcribe', hello, '--vtt'], { emu });
    expect(vtt.stdout).toMatch(/^WEBVTT\n\n00:00:00\.060 --> 00:00:0\d\.\d{3}\nhello world\.\n\n00:00:0\d\.\d{3} --> /);
  });

  it('--diarize tells two voices apart', async () => {
    const a = join(dir, 'a.wav');
    const b = join(dir, 'b.wav');
    await svcInProcess(
      [
        'tts',
        'say',
        'hi there',
        '--voice',
        'eve',
        '--codec',
        'pcm',
        '--sample-rate',
        '16000',
        '-o',
        a.replace('.wav', '.pcm'),
      ],
      { emu },
    );
    await svcInProcess(
      [
        'tts',
        'say',
        'hello back',
        '--voice',
        'leo',
        '--codec',
        'pcm',
        '--sample-rate',
        '16000',
        '-o',
        b.replace('.wav', '.pcm'),
      ],
      { emu },
    );
    const both = join(dir, 'dialog.wav');
    writeFileSync(
      both,
      encodeWav(
        Buffer.concat([
          readFileSync(a.replace('.wav', '.pcm')),
          silence(16000, 300),
          readFileSync(b.replace('.wav', '.pcm')),
        ]),
        { sampleRate: 16000, channels: 1 },
      ),
    );
    const r = await svcInProcess(['stt', 'transcribe', both, '--diarize'], { emu });
    expect(r.stdout).toBe('[speaker 0] hi there\n[speaker 1] hello back\n');
    const words = await svcInProcess(['stt', 'transcribe', both, '--diarize', '--words'], { emu });
    expect(
      words.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t').slice(3)),
    ).toEqual([
      ['0', 'hi'],
      ['0', 'there'],
      ['1', 'hello'],
      ['1', 'back'],
    ]);
  });

  it('--multichannel transcribes each channel; raw multichannel needs --channels', async () => {
    const left = textToTones('left side', 8000);
    const right = Buffer.concat([silence(8000, 200), textToTones('right', 8000)]);
    const len = Math.max(left.length, right.length);
    const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc(len - b.length)]);
    const stereo = interleave([pad(left), pad(right)]);
    const wav = join(dir, 'stereo.wav');
    writeFileSync(wav, encodeWav(stereo, { sampleRate: 8000, channels: 2 }));
    const r = await svcInProcess(['stt', 'transcribe', wav, '--multichannel'], { emu });
    expect(r.stdout).toBe('[channel 0] left side\n[channel 1] right\n');
    const raw = join(dir, 'stereo.ulaw');
    writeFileSync(raw, mulawEncode(stereo));
    const ok = await svcInProcess(
      ['stt', 'transcribe', raw, '--sample-rate', '8000', '--multichannel', '--channels', '2', '--json'],
      { emu },
    );
    const body = JSON.parse(ok.stdout);
    expect(body.channels.map((c: { text: string }) => c.text)).toEqual(['left side', 'right']);
    expect(body.text).toBe('left right side'); // words of both channels by time
    emu.clearRequests();
    const missing = await svcInProcess(['stt', 'transcribe', raw, '--sample-rate', '8000', '--multichannel'], { emu });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(
      /--channels: \(missing\) is not allowed: required for multichannel raw audio: 2 to 8/,
    );
    expect(emu.requests()).toHaveLength(0);
  });

  it('transcribes a URL (the service downloads it)', async () => {
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.end(readFileSync(hello));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hello.wav`;
      const r = await svcInProcess(['stt', 'transcribe', url], { emu });
      expect(r.stdout).toBe('hello world. how are you?\n');
    } finally {
      server.close();
    }
  });

  it('other audio (espeak-ng speech) comes back as voiced segments with timings', async () => {
    const speech = join(dir, 'speech.wav');
    await execa('espeak-ng', ['-w', speech, 'hello there. this is a test']);
    const r = await svcInProcess(['stt', 'transcribe', speech, '--json'], { emu });
    const body = JSON.parse(r.stdout);
    expect(body.words.length).toBeGreaterThan(0);
    for (const w of body.words) {
      expect(w.text).toBe('[speech]');
      expect(w.end).toBeGreaterThan(w.start);
    }
    expect(body.duration).toBeGreaterThan(1);
  });

  it('refuses a file over 500 MB before uploading (exit 2)', async () => {
    const big = join(dir, 'big.wav');
    const fd = openSync(big, 'w');
    ftruncateSync(fd, 500 * 1024 * 1024 + 1); // sparse: no disk used
    closeSync(fd);
    emu.clearRequests();
    const r = await svcInProcess(['stt', 'transcribe', big], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/FILE: .*big\.wav \(524288001 bytes\) is not allowed: at most 500 MB/);
    expect(emu.requests()).toHaveLength(0);
  });

  const bad: [string[], RegExp][] = [
    [['--channels', '9', '--multichannel'], /--channels: 9 is not allowed: a whole number from 2 to 8/],
    [['--channels', '1', '--multichannel'], /--channels: 1 is not allowed: a whole number from 2 to 8/],
    [['--channels', '2'], /--channels: 2 is not allowed: only with --multichannel/],
    [['--sample-rate', '11025'], /--sample-rate: 11025 is not allowed: one of 8000, 16000/],
    [['--audio-format', 'aiff'], /--audio-format: aiff is not allowed: one of pcm, mulaw, alaw, wav, mp3/],
    [
      ['--audio-format', 'pcm'],
      /--audio-format: pcm is not allowed: .*hello\.wav is WAV audio \(leave --audio-format out for containers;/,
    ],
    [['--format'], /--format: true is not allowed: only together with --language/],
    [['--format', '--language', 'ko'], /--language: ko is not allowed: with --format one of ar, de, en/],
    [['--srt', '--vtt'], /--srt: true is not allowed: not together with --vtt/],
  ];
  for (const [flags, message] of bad) {
    it(`rejects ${flags.join(' ')} (exit 2, nothing sent)`, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['stt', 'transcribe', hello, ...flags], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('a missing file is a usage error; a raw file needs its rate', async () => {
    const r = await svcInProcess(['stt', 'transcribe', join(dir, 'nope.wav')], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/nope\.wav: no such file/);
    const raw = join(dir, 'x.pcm');
    writeFileSync(raw, textToTones('x', 16000));
    const r2 = await svcInProcess(['stt', 'transcribe', raw], { emu });
    expect(r2.exitCode).toBe(2);
    expect(r2.stderr).toMatch(/--sample-rate: \(missing\) is not allowed: required for raw pcm audio/);
    expect((await svcInProcess(['stt', 'transcribe', raw, '--sample-rate', '16000'], { emu })).stdout).toBe('x\n');
  });
});
