import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { svcInProcess } from '../../helpers/in-process.js';
import { spawnSvc, svcProcess } from '../../helpers/subprocess.js';
import { itWithEmulator, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { encodeWav, interleave } from 'svc-formats/audio-codecs';
import { textToTones } from 'svc-emulator/tones';

let emu: TestEmulator;
let dir: string;
let hello: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-listen-');
  hello = join(dir, 'hello.wav');
  expect((await svcInProcess(['tts', 'say', 'hello world', '-o', hello], { emu })).exitCode).toBe(0);
});
afterAll(() => emu.close());

const silence = (rate: number, ms: number) => Buffer.alloc(Math.round((rate * ms) / 1000) * 2);

// The tests that stream audio (seconds of waiting each) run at once, each against an emulator of its own; the usage
// errors after them use the shared one, one after another.
const listening = itWithEmulator().concurrent;

describe('svc stt listen', () => {
  listening('transcribes a WAV file sent as paced 100 ms frames after transcript.created', async ({ emu }) => {
    emu.clearRequests();
    const frames: number[] = [];
    const onFrame = (f: { bytes: number }) => frames.push(f.bytes);
    emu.core.on('stt.frame', onFrame);
    emu.core.settings.sttReadyDelayMs = 300; // audio before the ready event would be refused
    try {
      const r = await svcInProcess(['stt', 'listen', '--input', hello], { emu });
      expect(r).toMatchObject({ exitCode: 0, stdout: 'hello world\n', stderr: '' });
    } finally {
      emu.core.off('stt.frame', onFrame);
      emu.core.settings.sttReadyDelayMs = 30;
    }
    expect(emu.requests()[0]).toMatchObject({
      method: 'WS',
      path: '/v1/stt',
      query: { sample_rate: '16000', encoding: 'pcm' },
    });
    // 24 kHz file → 16 kHz pcm: 3200-byte frames (100 ms), the last one shorter
    expect(frames.slice(0, -1).every((b) => b === 3200)).toBe(true);
    expect(frames.length).toBe(11);
  });

  listening('mu-law at 8 kHz, from a headerless file and from stdin', async ({ emu }) => {
    const ulaw = join(dir, 'hello.ulaw');
    await svcInProcess(['tts', 'say', 'hello world', '--codec', 'mulaw', '--sample-rate', '8000', '-o', ulaw], { emu });
    emu.clearRequests();
    const r = await svcInProcess(['stt', 'listen', '--input', ulaw, '--encoding', 'mulaw', '--sample-rate', '8000'], {
      emu,
    });
    expect(r.stdout).toBe('hello world\n');
    expect(emu.requests()[0]!.query).toMatchObject({ sample_rate: '8000', encoding: 'mulaw' });
    const s = await svcInProcess(
      ['stt', 'listen', '--input', '-', '--encoding', 'mulaw', '--sample-rate', '8000', '--no-realtime'],
      { emu, input: readFileSync(ulaw) },
    );
    expect(s.stdout).toBe('hello world\n');
  });

  listening('one line per utterance in a pipe; --json prints every event', async ({ emu }) => {
    const two = join(dir, 'two.wav');
    writeFileSync(
      two,
      encodeWav(
        Buffer.concat([textToTones('first part.', 16000), silence(16000, 900), textToTones('second part', 16000)]),
        { sampleRate: 16000, channels: 1 },
      ),
    );
    const r = await svcInProcess(['stt', 'listen', '--input', two, '--no-realtime'], { emu });
    expect(r.stdout).toBe('first part.\nsecond part\n');
    const j = await svcInProcess(
      ['stt', 'listen', '--input', two, '--no-realtime', '--json', '--interim', '--endpointing', '300'],
      { emu },
    );
    const events = j.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events[0].type).toBe('transcript.created');
    const finals = events.filter((e) => e.type === 'transcript.partial' && e.speech_final);
    expect(finals.map((e) => e.text)).toEqual(['first part.']);
    expect(events.some((e) => e.type === 'transcript.partial' && !e.is_final)).toBe(true);
    expect(events[events.length - 1]).toMatchObject({ type: 'transcript.done', text: 'second part' });
  });

  listening('every query parameter goes on the wire', async ({ emu }) => {
    emu.clearRequests();
    const r = await svcInProcess(
      [
        'stt',
        'listen',
        '--input',
        hello,
        '--no-realtime',
        '--interim',
        '--endpointing',
        '0',
        '--language',
        'en',
        '--format',
        '--diarize',
        '--keyterm',
        'Hello',
        '--keyterm',
        'WORLD',
        '--filler-words',
        '--smart-turn',
        '0.5',
        '--smart-turn-timeout',
        '800',
        '--vad-threshold',
        '0.2',
      ],
      { emu },
    );
    expect(r.exitCode).toBe(0);
    // both key terms reached the service (repeated on the query string), and it took their spelling
    expect(r.stdout).toBe('[speaker 0] Hello WORLD\n');
    expect(emu.requests()[0]!.query).toEqual({
      sample_rate: '16000',
      encoding: 'pcm',
      interim_results: 'true',
      endpointing: '0',
      language: 'en',
      format: 'true',
      diarize: 'true',
      keyterm: ['Hello', 'WORLD'],
      filler_words: 'true',
      smart_turn: '0.5',
      smart_turn_timeout: '800',
      vad_threshold: '0.2',
    });
  });

  listening('--multichannel shows each channel', async ({ emu }) => {
    const left = textToTones('left', 16000);
    const right = Buffer.concat([silence(16000, 100), textToTones('right', 16000)]);
    const len = Math.max(left.length, right.length);
    const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc(len - b.length)]);
    const wav = join(dir, 'stereo.wav');
    writeFileSync(wav, encodeWav(interleave([pad(left), pad(right)]), { sampleRate: 16000, channels: 2 }));
    const r = await svcInProcess(
      ['stt', 'listen', '--input', wav, '--multichannel', '--channels', '2', '--no-realtime'],
      { emu },
    );
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['[channel 0] left', '[channel 1] right']);
  });

  listening('records through arecord (a fake one first on PATH), on the device given', async ({ emu }) => {
    const bin = join(dir, 'fakebin');
    mkdirSync(bin, { recursive: true });
    const argsLog = join(dir, 'arecord-args.txt');
    const clip = join(dir, 'mic-clip.wav');
    writeFileSync(
      clip,
      encodeWav(Buffer.concat([textToTones('from the mic', 16000), silence(16000, 200)]), {
        sampleRate: 16000,
        channels: 1,
      }),
    );
    writeFileSync(join(bin, 'arecord'), `#!/bin/sh\necho "$@" > "${argsLog}"\nexec cat "${clip}"\n`);
    chmodSync(join(bin, 'arecord'), 0o755);
    const r = await svcProcess(['stt', 'listen', '--input', 'mic', '--input-device', 'plughw:7,0'], {
      emu,
      env: { PATH: `${bin}:${process.env.PATH}` },
    });
    expect(r).toMatchObject({ exitCode: 0, stdout: 'from the mic\n' });
    expect(readFileSync(argsLog, 'utf8').trim()).toBe('-q -c 1 -r 16000 -f S16_LE -D plughw:7,0');
  });

  listening('says what to install when arecord is missing, and sends nothing', async ({ emu }) => {
    const bin = join(dir, 'nodeonly');
    mkdirSync(bin, { recursive: true });
    try {
      symlinkSync(process.execPath, join(bin, 'node'));
    } catch {
      // already there
    }
    emu.clearRequests();
    const r = await svcProcess(['stt', 'listen', '--input', 'mic'], { emu, env: { PATH: bin } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      /cannot record: `arecord` is not installed \(apt-get install alsa-utils libasound2-dev && npm rebuild speaker\); read a file with --input FILE/,
    );
    expect(emu.requests()).toHaveLength(0);
    expect(dirname(process.execPath)).toBeTruthy();
  });

  listening('Ctrl-C sends audio.done, prints what transcript.done adds, exits 130', async ({ emu }) => {
    const long = join(dir, 'long.wav');
    const text = 'this sentence is long enough to be interrupted while it is being spoken';
    writeFileSync(long, encodeWav(textToTones(text, 16000), { sampleRate: 16000, channels: 1 }));
    let frames = 0;
    let signalled = false;
    const proc = spawnSvc(['stt', 'listen', '--input', long], { emu });
    const onFrame = () => {
      frames++;
      if (frames === 12 && !signalled) {
        signalled = true;
        proc.kill('SIGINT');
      }
    };
    emu.core.on('stt.frame', onFrame);
    try {
      const r = await proc;
      expect(signalled).toBe(true);
      expect(r.exitCode).toBe(130);
      const said = String(r.stdout).trim();
      expect(said.length).toBeGreaterThan(5);
      expect(text.startsWith(said)).toBe(true);
      expect(said.length).toBeLessThan(text.length);
    } finally {
      emu.core.off('stt.frame', onFrame);
    }
  });

  const bad: [string[], RegExp][] = [
    [['--endpointing', '5001'], /--endpointing: 5001 is not allowed: a whole number from 0 to 5000/],
    [['--smart-turn', '1.5'], /--smart-turn: 1\.5 is not allowed: a number from 0 to 1/],
    [['--smart-turn-timeout', '100'], /--smart-turn-timeout: 100 is not allowed: only together with --smart-turn/],
    [
      ['--smart-turn', '0.5', '--smart-turn-timeout', '0'],
      /--smart-turn-timeout: 0 is not allowed: a whole number from 1 to 5000/,
    ],
    [['--vad-threshold', '-0.1'], /--vad-threshold: -0\.1 is not allowed: a number from 0 to 1/],
    [['--keyterm', 'x'.repeat(51)], /--keyterm: x+… is not allowed: at most 50 characters \(got 51\)/],
    [
      Array.from({ length: 101 }, (_, i) => ['--keyterm', `t${i}`]).flat(),
      /--keyterm: 101 values is not allowed: at most 100/,
    ],
    [['--multichannel'], /--multichannel: true is not allowed: needs --channels/],
    [['--multichannel', '--channels', '9'], /--channels: 9 is not allowed: a whole number from 2 to 8/],
    [['--channels', '2'], /--channels: 2 is not allowed: only with --multichannel/],
    [['--encoding', 'flac'], /--encoding: flac is not allowed: one of pcm, mulaw, alaw, opus/],
    [['--sample-rate', '11025'], /--sample-rate: 11025 is not allowed: one of 8000, 16000/],
    [['--format'], /--format: true is not allowed: only together with --language/],
  ];
  for (const [flags, message] of bad) {
    it(`rejects ${flags.slice(0, 4).join(' ')}${flags.length > 4 ? ' …' : ''} (exit 2, nothing sent)`, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['stt', 'listen', '--input', hello, ...flags], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(emu.requests()).toHaveLength(0);
    });
  }
});
