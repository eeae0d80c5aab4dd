import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { svcInProcess } from '../../helpers/in-process.js';
import { spawnSvc } from '../../helpers/subprocess.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { decodeAudio } from 'svc-formats/audio-codecs';
import { tonesToText } from 'svc-emulator/tones';
import { UtteranceSplitter } from '../../../src/commands/tts/stream.js';

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-ttss-');
});
afterAll(() => emu.close());

describe('svc tts stream', () => {
  it('svc chat | svc tts stream: the first audio comes out before the chat stream has ended', async () => {
    emu.core.settings.tokenDelayMs = 50;
    const events: string[] = [];
    let firstDelta = -1;
    const onDelta = () => {
      if (firstDelta < 0) firstDelta = events.push('emulator: first audio.delta');
    };
    emu.core.on('tts.audio.delta', onDelta);
    try {
      const chat = spawnSvc(['chat', 'tell a story about a lighthouse'], { emu, timeout: 40_000 });
      const tts = spawnSvc(['tts', 'stream', '--codec', 'pcm', '--sample-rate', '16000'], {
        emu,
        timeout: 40_000,
        stdin: 'pipe',
        encoding: 'buffer',
      });
      let chatText = '';
      chat.stdout!.on('data', (c: Buffer) => {
        if (!chatText) events.push('chat: first text');
        chatText += c.toString();
      });
      chat.stdout!.pipe(tts.stdin!);
      chat.stdout!.on('end', () => events.push('chat: stream ended'));
      let gotAudio = false;
      tts.stdout!.on('data', () => {
        if (!gotAudio) events.push('tts stream: first audio bytes on stdout');
        gotAudio = true;
      });
      const [c, t] = await Promise.all([chat, tts]);
      expect(c.exitCode).toBe(0);
      expect(t.exitCode).toBe(0);
      expect(events).toEqual([
        'chat: first text',
        'emulator: first audio.delta',
        'tts stream: first audio bytes on stdout',
        'chat: stream ended',
      ]);
      // and everything that was written was spoken
      const pcm = Buffer.from(t.stdout as Uint8Array);
      expect(tonesToText(pcm, 16000)).toBe(chatText.trim());
      expect(chatText.trim().length).toBeGreaterThan(40);
    } finally {
      emu.core.off('tts.audio.delta', onDelta);
      emu.core.settings.tokenDelayMs = 0;
    }
  });

  it('a blank line ends an utterance; several utterances make one WAV file', async () => {
    const out = join(dir, 'two.wav');
    emu.clearRequests();
    const r = await svcInProcess(['tts', 'stream', '-o', out, '--voice', 'rex'], {
      emu,
      input: 'first one\n\nsecond one\n',
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/wrote .*two\.wav \(wav, \d+ bytes\)/);
    const wav = readFileSync(out);
    const { pcm, format } = await decodeAudio(wav);
    expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
    expect(tonesToText(pcm, format.sampleRate)).toBe('first onesecond one');
    const t = await svcInProcess(['stt', 'transcribe', out], { emu });
    expect(t.stdout).toBe('first one second one\n'); // the pause between utterances separates the words
    expect(emu.requests().filter((q) => q.path === '/v1/tts')).toHaveLength(1); // one connection, two utterances
  });

  it('--timestamps continues the times across utterances', async () => {
    const r = await svcInProcess(['tts', 'stream', '-o', join(dir, 'ts.mp3'), '--timestamps'], {
      emu,
      input: 'a\n\nb',
    });
    expect(r.exitCode).toBe(0);
    const rows = r.stderr
      .split('\n')
      .filter((l) => l.includes('\t'))
      .map((l) => l.split('\t'));
    expect(rows.map((x) => x[2])).toEqual(['"a"', '"b"']);
    expect(Number(rows[1]![0])).toBeGreaterThan(Number(rows[0]![1]));
  });

  it('empty input is exit 2 before connecting (nothing to speak)', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['tts', 'stream', '-o', join(dir, 'empty.wav')], { emu, input: '' });
    expect(r.exitCode).toBe(2);
    expect(emu.requests()).toHaveLength(0);
  });

  it('checks flags before connecting (exit 2)', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['tts', 'stream', '--speed', '3', '-o', join(dir, 'x.wav')], { emu, input: 'x' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--speed: 3 is not allowed: a number from 0\.7 to 1\.5/);
    expect(emu.requests()).toHaveLength(0);
  });

  it('splits text at blank lines even when they arrive in pieces', () => {
    const s = new UtteranceSplitter();
    expect(s.push('Hello wor')).toEqual(['Hello wor']);
    expect(s.push('ld.\n')).toEqual(['ld.']);
    expect(s.push('\nNext')).toEqual([null, 'Next']);
    expect(s.push(' line\nmore')).toEqual([' line\nmore']);
    expect(s.end()).toEqual([null]);
  });
});
