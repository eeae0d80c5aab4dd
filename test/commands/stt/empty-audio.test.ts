// Audio and images that cannot carry anything are refused before connecting (issue 25, items 11 and 12): empty
// files and stdin, a WAV whose header says 0 Hz or 0 channels, an empty image, --audio-format for a container.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav } from 'svc-formats/audio-codecs';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { svcInProcess } from '../../helpers/in-process.js';

let emu: TestEmulator;
const dir = tempDir();
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

/** A WAV with a real header and `rate` Hz / `channels` channels written into it. */
function wav(name: string, rate: number, channels: number): string {
  const good = encodeWav(Buffer.alloc(3200, 1), { sampleRate: 16000, channels: 1 });
  good.writeUInt16LE(channels, 22);
  good.writeUInt32LE(rate, 24);
  const path = join(dir, name);
  writeFileSync(path, good);
  return path;
}

const refused = async (args: string[], want: RegExp, input?: Buffer) => {
  emu.clearRequests();
  const r = await svcInProcess(args, { emu, input });
  expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
  expect(r.stderr).toMatch(want);
  expect(emu.requests()).toEqual([]);
};

describe('empty or impossible audio, refused before connecting', () => {
  const empty = join(dir, 'empty.wav');
  writeFileSync(empty, '');
  const zeroHz = wav('zero-hz.wav', 0, 1);
  const zeroCh = wav('zero-ch.wav', 16000, 0);

  it('stt transcribe: an empty file or stdin, a 0 Hz or 0-channel WAV', async () => {
    await refused(['stt', 'transcribe', empty], /empty/);
    await refused(['stt', 'transcribe', '-'], /stdin.*empty/, Buffer.alloc(0));
    await refused(
      ['stt', 'transcribe', zeroHz],
      /zero-hz\.wav is not a readable WAV file \(WAV file has a zero sample rate or channel count\)/,
    );
    await refused(
      ['stt', 'transcribe', zeroCh],
      /zero-ch\.wav is not a readable WAV file \(.*zero sample rate or channel count\)/,
    );
  });

  it('stt listen and realtime talk: the same, from a file and from stdin', async () => {
    for (const cmd of [
      ['stt', 'listen', '--no-realtime'],
      ['realtime', 'talk', '--output', join(dir, 'out.wav')],
    ]) {
      await refused([...cmd, '--input', empty], /--input: .*empty\.wav is empty: there is no audio to send/);
      await refused([...cmd, '--input', '-'], /--input: stdin is empty/, Buffer.alloc(0));
      await refused(
        [...cmd, '--input', zeroHz],
        /--input: .*zero-hz\.wav is not a readable WAV file \(.*zero sample rate/,
      );
      await refused(
        [...cmd, '--input', '-'],
        /--input: stdin is not a readable WAV file \(.*zero sample rate or channel count\)/,
        readFileSync(zeroCh),
      );
    }
  });

  it('an empty image file for --image', async () => {
    const img = join(dir, 'empty.png');
    writeFileSync(img, '');
    await refused(['chat', 'describe this', '--image', img], /--image: .*empty\.png is empty/);
    await refused(
      ['images', 'edit', 'make it blue', '--image', img, '-o', join(dir, 'blue.png')],
      /--image: .*empty\.png is empty/,
    );
  });
});

describe('--audio-format is for headerless audio only (issue 25, item 12)', () => {
  it('given for a WAV or any container, it is refused like pcm on a WAV', async () => {
    const good = wav('good.wav', 16000, 1);
    for (const fmt of ['pcm', 'wav', 'mp3', 'flac']) {
      await refused(
        ['stt', 'transcribe', good, '--audio-format', fmt],
        new RegExp(`--audio-format: ${fmt} is not allowed: .*good\\.wav is WAV audio \\(leave --audio-format out`),
      );
    }
  });
});
