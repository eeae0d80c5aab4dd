// A machine without a sound card: every audio path exits 1 with a message that says what to do, before anything
// is sent — never the native abort (134) of libasound inside `speaker`. The ALSA configuration names a card that
// does not exist (test/fixtures/asound-nocard.conf); the real `arecord` is on PATH.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeWav } from 'svc-formats/audio-codecs';
import { ROOT, tempDir } from '../helpers/files.js';
import { spawnSvc, svcProcess } from '../helpers/subprocess.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcOnTerminal } from '../helpers/terminal.js';
import { needSpeaker } from '../helpers/tools.js';

const NO_CARD = join(ROOT, 'test', 'fixtures', 'asound-nocard.conf');
const NULL_CARD = join(ROOT, 'test', 'fixtures', 'asound-null.conf');
const PLAY = /cannot play audio: .*--output FILE .*--output - .*--output-device NAME/;
const RECORD =
  /cannot record: no sound card, or the capture device "[^"]+" cannot be opened .*--input FILE .*--input - .*--input-device NAME/;

let emu: TestEmulator;
let clip: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  clip = join(tempDir('svc-nocard-'), 'q.wav');
  writeFileSync(clip, encodeWav(Buffer.alloc(24000), { sampleRate: 24000, channels: 1 }));
});
afterAll(() => emu.close());

async function run(
  args: string[],
  expected: RegExp,
  env: Record<string, string> = { ALSA_CONFIG_PATH: NO_CARD },
  input?: string,
) {
  emu.clearRequests();
  const r = await svcProcess(args, { emu, env, input });
  expect(r.exitCode, r.stderr).toBe(1);
  expect(r.stderr).toMatch(expected);
  expect(r.stderr).not.toMatch(/Assertion|Aborted|core dumped/);
  // nothing was sent: the device is checked before the request or the WebSocket
  expect(emu.requests()).toEqual([]);
  return r;
}

describe('no sound card: playback', () => {
  it('tts say TEXT on a terminal (the speaker is the default there)', async () => {
    emu.clearRequests();
    const r = await svcOnTerminal(['tts', 'say', 'hello'], { emu, env: { ALSA_CONFIG_PATH: NO_CARD } });
    expect(r.exitCode, r.screen).toBe(1);
    expect(r.screen.replace(/\r?\n/g, ' ')).toMatch(PLAY);
    expect(emu.requests()).toEqual([]);
  });

  it('tts say --play', () => run(['tts', 'say', 'hello', '--play'], PLAY));
  it('tts say --play --rest', () => run(['tts', 'say', 'hello', '--play', '--rest'], PLAY));
  it('tts stream --play', () => run(['tts', 'stream', '--play'], PLAY, undefined, 'hello\n'));
  it('realtime talk without --output (the speaker)', () => run(['realtime', 'talk', '--input', clip], PLAY));
  it('calls join --output speaker', () => run(['calls', 'join', 'rtc_x', '--output', 'speaker'], PLAY));
  it('audio test: the speaker is checked before anything is recorded', () => run(['audio', 'test'], PLAY));
  it('--output-device naming a device that does not exist, with a working default', () => {
    needSpeaker();
    return run(
      ['tts', 'say', 'hello', '--play', '--output-device', 'hw:7,0'],
      /cannot play audio: no sound card, or "hw:7,0" cannot be opened/,
      { ALSA_CONFIG_PATH: NULL_CARD },
    );
  });
});

describe('no sound card: capture (arecord installed)', () => {
  it('stt listen --input mic', () => run(['stt', 'listen', '--input', 'mic'], RECORD));
  it('realtime talk (the microphone by default)', () => run(['realtime', 'talk', '--output', '-'], RECORD));
  it('calls join --input mic', () => run(['calls', 'join', 'rtc_x', '--input', 'mic'], RECORD));
});

describe('no sound card: files and pipes keep working', () => {
  it('tts say -o FILE and stt listen from a file exit 0', async () => {
    const out = join(tempDir('svc-nocard-'), 'a.wav');
    expect(
      (await svcProcess(['tts', 'say', 'fine', '-o', out], { emu, env: { ALSA_CONFIG_PATH: NO_CARD } })).exitCode,
    ).toBe(0);
    const r = await svcProcess(['stt', 'listen', '--input', out, '--no-realtime'], {
      emu,
      env: { ALSA_CONFIG_PATH: NO_CARD },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('fine\n');
  });

  it('Ctrl-C while waiting for a silent microphone ends with 130, not a hang', async () => {
    emu.clearRequests();
    const bin = tempDir('svc-arecord-');
    const arecord = `#!/bin/sh\necho $$ > ${bin}/pid.tmp\nmv ${bin}/pid.tmp ${bin}/pid\nexec sleep 60\n`;
    writeFileSync(join(bin, 'arecord'), arecord, { mode: 0o755 });
    const p = spawnSvc(['stt', 'listen', '--input', 'mic'], { emu, env: { PATH: `${bin}:${process.env.PATH}` } });
    // the microphone was started (and gives nothing yet): then Ctrl-C
    while (!existsSync(join(bin, 'pid'))) await new Promise((res) => setTimeout(res, 20));
    p.kill('SIGINT');
    const r = await p;
    expect(r.exitCode).toBe(130);
    expect(emu.requests()).toEqual([]);
    // svc stopped its capture program: none is left recording (it ends once its SIGTERM is handled)
    const pid = Number(readFileSync(join(bin, 'pid'), 'utf8'));
    // running, not a zombie its new parent has yet to reap (/proc/PID/stat's state, after the name in parentheses)
    const alive = () => {
      try {
        return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && alive(); i++) await new Promise((res) => setTimeout(res, 20));
    expect(alive(), `the capture program (pid ${pid}) still runs after svc exited`).toBe(false);
  });
});
