// Behaviour on a terminal (a pseudo-terminal from util-linux `script`) and without the speaker package.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../../helpers/files.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcProcess } from '../../helpers/subprocess.js';
import { svcOnTerminal } from '../../helpers/terminal.js';
import { encodeWav } from 'svc-formats/audio-codecs';
import { textToTones } from 'svc-emulator/tones';
import { needSpeaker } from '../../helpers/tools.js';

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-tty-');
});
afterAll(() => emu.close());

/** Run the CLI with stdin, stdout and stderr on a pseudo-terminal; returns what the terminal showed. */
const onTerminal = (args: string[], env: Record<string, string> = {}) => svcOnTerminal(args, { emu, env });

describe('on a terminal', () => {
  it('svc tts say plays on the speaker when stdout is a terminal', async () => {
    needSpeaker();
    const capture = join(dir, 'tty.raw');
    const conf = join(dir, 'asound.conf');
    writeFileSync(
      conf,
      `pcm.!default { type file; slave.pcm { type null }; file "|cat >> ${capture}"; format "raw" }\n`,
    );
    const r = await onTerminal(['tts', 'say', 'on the terminal'], { ALSA_CONFIG_PATH: conf });
    expect(r.exitCode).toBe(0);
    expect(r.screen).toMatch(/played pcm, 1\.\d\d s/);
    for (let i = 0; i < 50 && !existsSync(capture); i++) await new Promise((res) => setTimeout(res, 20));
    const { tonesToText } = await import('svc-emulator/tones');
    expect(tonesToText(readFileSync(capture), 24000)).toBe('on the terminal');
  });

  it(
    'svc stt listen rewrites one live line with interim results and fixes it at the end of the ' + 'utterance',
    async () => {
      const wav = join(dir, 'live.wav');
      writeFileSync(
        wav,
        encodeWav(Buffer.concat([textToTones('a live line that grows.', 16000), Buffer.alloc(16000 * 2)]), {
          sampleRate: 16000,
          channels: 1,
        }),
      );
      const r = await onTerminal(['stt', 'listen', '--input', wav, '--interim', '--no-realtime']);
      expect(r.exitCode).toBe(0);
      const rewrites = r.screen.split('\r\u001b[2K').filter(Boolean);
      expect(rewrites.length).toBeGreaterThan(2); // interim states, then the fixed line
      expect(rewrites[0]!.length).toBeLessThan('a live line that grows.'.length);
      expect(r.screen.trimEnd().endsWith('\r\u001b[2Ka live line that grows.')).toBe(true);
    },
  );

  it('will not write audio bytes to a terminal', async () => {
    emu.clearRequests();
    const r = await onTerminal(['tts', 'say', 'x', '-o', '-']);
    expect(r.exitCode).toBe(2);
    expect(r.screen).toMatch(/will not write audio bytes to a terminal/);
    expect(emu.requests()).toHaveLength(0);
  });
});

describe('without the speaker package', () => {
  it('says what to install, sends nothing, and files still work', async () => {
    const env = { NODE_OPTIONS: `--import ${join(ROOT, 'test', 'fixtures', 'no-speaker.mjs')}` };
    emu.clearRequests();
    const r = await svcProcess(['tts', 'say', 'hi', '--play'], { emu, env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      /cannot play audio: the `speaker` package is not available .*apt-get install libasound2-dev alsa-utils && npm rebuild speaker/,
    );
    expect(emu.requests()).toHaveLength(0);
    const out = join(dir, 'still.wav');
    expect((await svcProcess(['tts', 'say', 'still works', '-o', out], { emu, env })).exitCode).toBe(0);
    expect((await svcProcess(['stt', 'transcribe', out], { emu, env })).stdout).toBe('still works\n');
  });
});
