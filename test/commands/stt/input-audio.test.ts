// Input audio of stt transcribe / stt listen / realtime talk is sniffed: WAV and MP3 read by svc, other containers
// through ffmpeg (on PATH here), refused with exit 2 naming the format and what to install when ffmpeg is missing;
// text is refused; stdin works for transcribe; a directory is a clear error. Plus stt listen --model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { encodeWav } from '../../../src/audio/codecs.js';
import { textToTones } from '../../../src/emulator/tones.js';
import { startTestEmulator, svc, svcShell, tempDir, type TestEmulator } from '../../helpers/cli.js';
import { fastEmulator } from '../realtime/talk-helpers.js';

let emu: TestEmulator;
let dir: string;
/** PATH with node but without ffmpeg */
let noFfmpeg: string;
const clip = (ext: string) => join(dir, `hello.${ext}`);

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-input-audio-');
  writeFileSync(clip('wav'), encodeWav(Buffer.concat([Buffer.alloc(3200), textToTones('hello input', 16000), Buffer.alloc(16000)]), { sampleRate: 16000, channels: 1 }));
  for (const ext of ['flac', 'ogg', 'm4a', 'aiff']) await execa('ffmpeg', ['-loglevel', 'error', '-y', '-i', clip('wav'), clip(ext)]);
  writeFileSync(join(dir, 'notes.wav'), 'These are meeting notes, not a recording.\n'.repeat(40));
  noFfmpeg = join(dir, 'bin');
  mkdirSync(noFfmpeg);
  symlinkSync(process.execPath, join(noFfmpeg, 'node'));
}, 60_000);
afterAll(() => emu.close());

/** Run `stt transcribe FILE` against a server that records the multipart body: its field names and the file part. */
async function upload(file: string): Promise<{ fields: string[]; file: Buffer }> {
  let body = Buffer.alloc(0);
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      body = Buffer.concat(parts);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"ok","language":"","duration":1}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const r = await svc(['stt', 'transcribe', file], { env: { SVC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, SVC_API_KEY: 'k-test-upload' } });
    expect(r.exitCode, r.stderr).toBe(0);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  const text = body.toString('latin1');
  const fields = [...text.matchAll(/form-data; name="([^"]+)"/g)].map((m) => m[1]!);
  const start = text.indexOf('\r\n\r\n', text.indexOf('name="file"')) + 4;
  const end = text.lastIndexOf('\r\n--');
  return { fields, file: body.subarray(start, end) };
}

describe('stt transcribe: stdin, directories, containers', () => {
  it('- reads stdin: `svc tts say … | svc stt transcribe -`', async () => {
    const r = await svcShell('svc tts say "from a pipe" | svc stt transcribe -', { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('from a pipe');
  });

  it('a directory is exit 2 with a clear message, nothing sent', async () => {
    emu.clearRequests();
    const r = await svc(['stt', 'transcribe', dir], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`${dir} is a directory (give an audio file, - for stdin, or an http(s) URL)`);
    expect(emu.requests()).toEqual([]);
  });

  it('text named .wav is exit 2, nothing sent', async () => {
    emu.clearRequests();
    const r = await svc(['stt', 'transcribe', join(dir, 'notes.wav')], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('notes.wav holds text, not audio');
    expect(emu.requests()).toEqual([]);
  });

  it('FLAC goes up as it is (the API decodes it; no audio_format)', async () => {
    const up = await upload(clip('flac'));
    expect(up.fields).toEqual(['file']);
    expect(up.file.equals(readFileSync(clip('flac')))).toBe(true);
  });

  it('AIFF (not in the API list) is converted to WAV by ffmpeg and transcribed', async () => {
    emu.clearRequests();
    const r = await svc(['stt', 'transcribe', clip('aiff')], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('hello input\n');
    const up = await upload(clip('aiff'));
    expect(up.file.subarray(0, 4).toString()).toBe('RIFF');
    expect(up.file.readUInt32LE(4)).toBe(up.file.length - 8); // sizes put in
  });

  it('without ffmpeg, AIFF is exit 2 naming the format and what to install', async () => {
    emu.clearRequests();
    const r = await svc(['stt', 'transcribe', clip('aiff')], { emu, env: { PATH: noFfmpeg } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/hello\.aiff is AIFF audio, which the service does not read; .*install ffmpeg \(apt-get install ffmpeg/);
    expect(emu.requests()).toEqual([]);
  });

  it('headerless bytes without --audio-format are exit 2 (not a server 400)', async () => {
    emu.clearRequests();
    const raw = join(dir, 'mystery.bin');
    writeFileSync(raw, textToTones('raw', 16000));
    const r = await svc(['stt', 'transcribe', raw], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/not a known audio container .*--audio-format \(pcm, mulaw, alaw\) and --sample-rate/);
    expect(emu.requests()).toEqual([]);
  });
});

describe('stt listen and realtime talk: containers through ffmpeg', () => {
  for (const ext of ['flac', 'ogg', 'm4a']) {
    it(`stt listen --input hello.${ext}`, async () => {
      const r = await svc(['stt', 'listen', '--input', clip(ext), '--no-realtime'], { emu });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('hello input\n');
    });
  }

  it('stt listen from stdin holding FLAC', async () => {
    const r = await svc(['stt', 'listen', '--input', '-', '--no-realtime'], { emu, inputFile: clip('flac') });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('hello input\n');
  });

  it('realtime talk --input hello.m4a: the session hears it', async () => {
    fastEmulator(emu);
    const r = await svc(['realtime', 'talk', '--input', clip('m4a'), '--output', join(dir, 'answer.wav')], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^you: hello input\n/);
    // the note says what the input does (it is not a microphone)
    expect(r.stderr).toContain(`connected to session (sending ${clip('m4a')} at real time (not while the assistant speaks); the answers to ${join(dir, 'answer.wav')}; Ctrl-C ends)`);
    expect(r.stderr).not.toContain('microphone');
  });

  it('without ffmpeg: exit 2 naming the format, before anything is sent', async () => {
    for (const args of [['stt', 'listen', '--input', clip('ogg')], ['realtime', 'talk', '--input', clip('ogg'), '--output', '-']]) {
      emu.clearRequests();
      const r = await svc(args, { emu, env: { PATH: noFfmpeg } });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/--input: .*hello\.ogg is Ogg Vorbis audio; svc decodes WAV and MP3 itself; for other formats install ffmpeg/);
      expect(emu.requests()).toEqual([]);
    }
  });

  it('text named .wav: exit 2 for stt listen and realtime talk', async () => {
    for (const args of [['stt', 'listen', '--input', join(dir, 'notes.wav')], ['realtime', 'talk', '--input', join(dir, 'notes.wav'), '--output', '-']]) {
      emu.clearRequests();
      const r = await svc(args, { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('notes.wav holds text, not audio');
      expect(emu.requests()).toEqual([]);
    }
  });
});

describe('stt listen --model', () => {
  it('is sent in the query; another value is exit 2', async () => {
    emu.clearRequests();
    const r = await svc(['stt', 'listen', '--input', clip('wav'), '--no-realtime', '--model', 'voice-transcribe-2.0'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(emu.requests().find((q) => q.path === '/v1/stt')!.query).toMatchObject({ model: 'voice-transcribe-2.0' });
    emu.clearRequests();
    const bad = await svc(['stt', 'listen', '--input', clip('wav'), '--model', 'whisper'], { emu });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--model: whisper is not allowed: one of voice-transcribe-2\.0/);
    expect(emu.requests()).toEqual([]);
  });
});
