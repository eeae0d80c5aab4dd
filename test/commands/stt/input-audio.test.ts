// Input audio of stt transcribe / stt listen / realtime talk is sniffed: WAV and MP3 read by svc, other containers
// through ffmpeg (on PATH here), refused with exit 2 naming the format and what to install when ffmpeg is missing;
// text is refused; stdin works for transcribe; a directory is a clear error. Plus stt listen --model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { encodeWav } from 'svc-formats/audio-codecs';
import { textToTones } from 'svc-emulator/tones';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcShell } from '../../helpers/subprocess.js';
import { tempDir } from '../../helpers/files.js';
import { fastEmulator } from '../realtime/talk-helpers.js';
import { WebSocketServer } from 'ws';
import { tonesToText } from 'svc-emulator/tones';
import { needTools } from '../../helpers/tools.js';

let emu: TestEmulator;
let dir: string;
/** PATH with node but without ffmpeg */
let noFfmpeg: string;
const clip = (ext: string) => join(dir, `hello.${ext}`);

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-input-audio-');
  writeFileSync(
    clip('wav'),
    encodeWav(Buffer.concat([Buffer.alloc(3200), textToTones('hello input', 16000), Buffer.alloc(16000)]), {
      sampleRate: 16000,
      channels: 1,
    }),
  );
  needTools('ffmpeg');
  for (const ext of ['flac', 'ogg', 'm4a', 'aiff'])
    await execa('ffmpeg', ['-loglevel', 'error', '-y', '-i', clip('wav'), clip(ext)]);
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
    const r = await svcInProcess(['stt', 'transcribe', file], {
      env: { SVC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, SVC_API_KEY: 'k-test-upload' },
    });
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
    const r = await svcInProcess(['stt', 'transcribe', dir], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`${dir} is a directory (give an audio file, - for stdin, or an http(s) URL)`);
    expect(emu.requests()).toEqual([]);
  });

  it('text named .wav is exit 2, nothing sent', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['stt', 'transcribe', join(dir, 'notes.wav')], { emu });
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
    const r = await svcInProcess(['stt', 'transcribe', clip('aiff')], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('hello input\n');
    const up = await upload(clip('aiff'));
    expect(up.file.subarray(0, 4).toString()).toBe('RIFF');
    expect(up.file.readUInt32LE(4)).toBe(up.file.length - 8); // sizes put in
  });

  it('without ffmpeg, AIFF is exit 2 naming the format and what to install', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['stt', 'transcribe', clip('aiff')], { emu, env: { PATH: noFfmpeg } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /hello\.aiff is AIFF audio, which the service does not read; .*install ffmpeg \(apt-get install ffmpeg/,
    );
    expect(emu.requests()).toEqual([]);
  });

  it('headerless bytes without --audio-format are exit 2 (not a server 400)', async () => {
    emu.clearRequests();
    const raw = join(dir, 'mystery.bin');
    writeFileSync(raw, textToTones('raw', 16000));
    const r = await svcInProcess(['stt', 'transcribe', raw], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/not a known audio container .*--audio-format \(pcm, mulaw, alaw\) and --sample-rate/);
    expect(emu.requests()).toEqual([]);
  });
});

describe('stt listen and realtime talk: containers through ffmpeg', () => {
  for (const ext of ['flac', 'ogg', 'm4a']) {
    it(`stt listen --input hello.${ext}`, async () => {
      const r = await svcInProcess(['stt', 'listen', '--input', clip(ext), '--no-realtime'], { emu });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('hello input\n');
    });
  }

  it('stt listen from stdin holding FLAC', async () => {
    const r = await svcInProcess(['stt', 'listen', '--input', '-', '--no-realtime'], { emu, inputFile: clip('flac') });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('hello input\n');
  });

  it('realtime talk --input hello.m4a: the session hears it', async () => {
    fastEmulator(emu);
    const r = await svcInProcess(['realtime', 'talk', '--input', clip('m4a'), '--output', join(dir, 'answer.wav')], {
      emu,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^you: hello input\n/);
    // the note says what the input does (it is not a microphone)
    expect(r.stderr).toContain(
      `connected to session (sending ${clip('m4a')} at real time (not while the assistant speaks); the ` +
        `answers to ${join(dir, 'answer.wav')}; Ctrl-C ends)`,
    );
    expect(r.stderr).not.toContain('microphone');
  });

  it('without ffmpeg: exit 2 naming the format, before anything is sent', async () => {
    for (const args of [
      ['stt', 'listen', '--input', clip('ogg')],
      ['realtime', 'talk', '--input', clip('ogg'), '--output', '-'],
    ]) {
      emu.clearRequests();
      const r = await svcInProcess(args, { emu, env: { PATH: noFfmpeg } });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        /--input: .*hello\.ogg is Ogg Vorbis audio; svc decodes WAV and MP3 itself; for other formats install ffmpeg/,
      );
      expect(emu.requests()).toEqual([]);
    }
  });

  it('text named .wav: exit 2 for stt listen and realtime talk', async () => {
    for (const args of [
      ['stt', 'listen', '--input', join(dir, 'notes.wav')],
      ['realtime', 'talk', '--input', join(dir, 'notes.wav'), '--output', '-'],
    ]) {
      emu.clearRequests();
      const r = await svcInProcess(args, { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('notes.wav holds text, not audio');
      expect(emu.requests()).toEqual([]);
    }
  });
});

describe('stt listen --model', () => {
  it('is sent in the query; another value is exit 2', async () => {
    emu.clearRequests();
    const r = await svcInProcess(
      ['stt', 'listen', '--input', clip('wav'), '--no-realtime', '--model', 'voice-transcribe-2.0'],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(emu.requests().find((q) => q.path === '/v1/stt')!.query).toMatchObject({ model: 'voice-transcribe-2.0' });
    emu.clearRequests();
    const bad = await svcInProcess(['stt', 'listen', '--input', clip('wav'), '--model', 'whisper'], { emu });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--model: whisper is not allowed: one of voice-transcribe-2\.0/);
    expect(emu.requests()).toEqual([]);
  });
});

/** Ogg CRC-32 (polynomial 0x04c11db7, no reflection), for the test's own Ogg muxer. */
const CRC = Array.from({ length: 256 }, (_, i) => {
  let r = i << 24;
  for (let k = 0; k < 8; k++) r = r & 0x80000000 ? ((r << 1) ^ 0x04c11db7) >>> 0 : (r << 1) >>> 0;
  return r >>> 0;
});
function oggPage(packet: Buffer, seq: number, granule: number, flags: number): Buffer {
  const lacing: number[] = [];
  let n = packet.length;
  while (n >= 255) {
    lacing.push(255);
    n -= 255;
  }
  lacing.push(n);
  const h = Buffer.alloc(27 + lacing.length);
  h.write('OggS', 0, 'latin1');
  h[5] = flags;
  h.writeBigInt64LE(BigInt(granule), 6);
  h.writeUInt32LE(1, 14);
  h.writeUInt32LE(seq, 18);
  h[26] = lacing.length;
  lacing.forEach((v, i) => (h[27 + i] = v));
  const page = Buffer.concat([h, packet]);
  let crc = 0;
  for (const b of page) crc = ((crc << 8) ^ CRC[((crc >>> 24) ^ b) & 0xff]!) >>> 0;
  page.writeUInt32LE(crc, 22);
  return page;
}
/** The raw packets a client sent, back in an Ogg Opus file (48 kHz mono, 20 ms each) that ffmpeg can decode. */
function oggOpus(packets: Buffer[]): Buffer {
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'latin1');
  head[8] = 1;
  head[9] = 1;
  head.writeUInt16LE(312, 10);
  head.writeUInt32LE(48000, 12);
  const tags = Buffer.concat([
    Buffer.from('OpusTags', 'latin1'),
    Buffer.from([3, 0, 0, 0]),
    Buffer.from('svc'),
    Buffer.alloc(4),
  ]);
  const pages = [oggPage(head, 0, 0, 2), oggPage(tags, 1, 0, 0)];
  packets.forEach((p, i) => pages.push(oggPage(p, i + 2, 312 + (i + 1) * 960, i === packets.length - 1 ? 4 : 0)));
  return Buffer.concat(pages);
}

describe('stt listen --encoding opus', () => {
  it(
    'sends one Opus packet per binary frame (20 ms, mono), no sample_rate; the packets decode back to the ' + 'speech',
    async () => {
      const frames: Buffer[] = [];
      let url = '';
      const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
      await new Promise((resolve) => wss.once('listening', resolve));
      wss.on('connection', (ws, req) => {
        url = req.url ?? '';
        ws.send(JSON.stringify({ type: 'transcript.created', id: 'x' }));
        ws.on('message', (d: Buffer, binary) => {
          if (binary) return void frames.push(Buffer.from(d));
          if (JSON.parse(String(d)).type !== 'audio.done') return;
          ws.send(
            JSON.stringify({ type: 'transcript.done', text: `${frames.length} packets`, words: [], duration: 1 }),
          );
          ws.close(1000);
        });
      });
      try {
        const port = (wss.address() as AddressInfo).port;
        const r = await svcInProcess(['stt', 'listen', '--input', clip('wav'), '--encoding', 'opus', '--no-realtime'], {
          env: { SVC_BASE_URL: `http://127.0.0.1:${port}`, SVC_API_KEY: 'k-test-opus' },
        });
        expect(r.exitCode, r.stderr).toBe(0);
      } finally {
        await new Promise((resolve) => wss.close(resolve));
      }
      expect(url).toBe('/v1/stt?encoding=opus');
      // one packet per 20 ms of the clip (16 kHz: 320 samples), one or two more for the encoder's look-ahead
      const packets = Math.ceil((readFileSync(clip('wav')).length - 44) / 2 / 320);
      expect(frames.length).toBeGreaterThanOrEqual(packets);
      expect(frames.length).toBeLessThanOrEqual(packets + 2);
      for (const f of frames) {
        expect(f[0]! & 0x04).toBe(0); // mono
        expect(f[0]! & 0x03).toBe(0); // one frame per packet
      }
      const ogg = join(dir, 'sent.opus');
      writeFileSync(ogg, oggOpus(frames));
      const pcm = await execa(
        'ffmpeg',
        ['-loglevel', 'error', '-i', ogg, '-f', 's16le', '-ac', '1', '-ar', '16000', 'pipe:1'],
        { encoding: 'buffer' },
      );
      expect(tonesToText(Buffer.from(pcm.stdout as Uint8Array), 16000)).toBe('hello input');
    },
  );

  it('without ffmpeg, or with --multichannel: exit 2 before anything is sent', async () => {
    emu.clearRequests();
    const a = await svcInProcess(['stt', 'listen', '--input', clip('wav'), '--encoding', 'opus'], {
      emu,
      env: { PATH: noFfmpeg },
    });
    expect(a.exitCode).toBe(2);
    expect(a.stderr).toMatch(
      /--encoding: opus is not allowed: pcm, mulaw or alaw here: svc encodes Opus with ffmpeg \(libopus\), which is not installed/,
    );
    const b = await svcInProcess(
      ['stt', 'listen', '--input', clip('wav'), '--encoding', 'opus', '--multichannel', '--channels', '2'],
      { emu },
    );
    expect(b.exitCode).toBe(2);
    expect(b.stderr).toMatch(/--multichannel: true is not allowed: not with --encoding opus/);
    expect(emu.requests()).toEqual([]);
  });
});
