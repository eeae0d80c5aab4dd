// svc audio devices / svc audio test, and --input-device / --output-device on the voice commands, through an ALSA
// configuration with several named devices (playback into files by ALSA's `file` plugin), a fake `arecord` first
// on PATH that records its argv, and a fake `pactl` for PulseAudio names.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeWav } from 'svc-formats/audio-codecs';
import { svcInProcess } from '../../helpers/in-process.js';
import { spawnSvc, svcProcess } from '../../helpers/subprocess.js';
import { itWithEmulator } from '../../helpers/emulator.js';
import { tempDir, writeTemp } from '../../helpers/files.js';
import { needTools } from '../../helpers/tools.js';
import { svcOnTerminal } from '../../helpers/terminal.js';
import { wavClip } from '../realtime/talk-helpers.js';
import { alsaRoom, fakeTools } from './audio-helpers.js';
import { needSpeaker } from '../../helpers/tools.js';

needTools('arecord', 'aplay');

/** 3 s of a 440 Hz sine at 8000 of 32767 (RMS -15.3 dBFS, peak -12.2 dBFS), 24 kHz mono */
function sinePcm(seconds = 3, rate = 24_000): Buffer {
  const pcm = Buffer.alloc(seconds * rate * 2);
  for (let i = 0; i < seconds * rate; i++)
    pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  return pcm;
}
const SINE = sinePcm();
const sineClip = () => writeTemp('sine.wav', encodeWav(SINE, { sampleRate: 24_000, channels: 1 }));

const env = (room: { conf: string }, bin: string) => ({
  ALSA_CONFIG_PATH: room.conf,
  PATH: `${bin}:${process.env.PATH}`,
});

const DEVICES = [
  ['0', '*', 'default', 'Built-in audio', 'alsa'],
  ['1', '', 'studio', 'Studio monitors', 'alsa'],
  ['2', '', 'headset', 'USB headset', 'alsa'],
  ['3', '', 'lineIn', 'Line input', 'alsa'],
];

describe.concurrent('svc audio devices', () => {
  it('in a pipe: a tab-separated row per device, inputs then outputs, numbered from 0, default marked', async () => {
    const room = alsaRoom();
    const r = await svcInProcess(['audio', 'devices'], { env: env(room, fakeTools(sineClip()).bin) });
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = [...DEVICES.map((d) => ['input', ...d]), ...DEVICES.map((d) => ['output', ...d])];
    expect(r.stdout).toBe(rows.map((row) => `${row.join('\t')}\n`).join(''));
    expect(r.stderr).toBe('');
  });

  it('--input / --output list one kind; --json one object per device', async () => {
    const room = alsaRoom();
    const e = env(room, fakeTools(sineClip()).bin);
    const inputs = await svcInProcess(['audio', 'devices', '--input'], { env: e });
    expect(
      inputs.stdout
        .split('\n')
        .filter(Boolean)
        .every((l) => l.startsWith('input\t')),
    ).toBe(true);
    const r = await svcInProcess(['audio', 'devices', '--output', '--json'], { env: e });
    expect(r.exitCode, r.stderr).toBe(0);
    const objects = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(objects).toEqual(
      DEVICES.map(([index, mark, name, description, backend]) => ({
        kind: 'output',
        index: Number(index),
        name,
        description,
        default: mark === '*',
        backend,
      })),
    );
  });

  it('without alsa-utils: ALSA’s default alone, and a warning naming what is missing', async () => {
    const r = await svcInProcess(['audio', 'devices'], { env: { PATH: tempDir('svc-no-tools-') } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      "input\t0\t*\tdefault\tALSA's default device\talsa\noutput\t0\t*\tdefault\tALSA's default device\talsa\n",
    );
    expect(r.stderr).toBe(
      'warning: no ALSA devices: `arecord` is not installed\nwarning: no ALSA devices: `aplay` is not installed\n',
    );
  });

  it('on a terminal: a table with its header', async () => {
    const room = alsaRoom();
    const r = await svcInProcess(['audio', 'devices', '--output'], {
      env: env(room, fakeTools(sineClip()).bin),
      tty: true,
      columns: 100,
    });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^KIND\s+#\s+DEFAULT\s+NAME\s+DESCRIPTION\s+BACKEND$/);
    expect(lines[1]).toMatch(/^output\s+0\s+\*\s+default\s+Built-in audio\s+alsa$/);
    expect(lines[3]).toMatch(/^output\s+2\s+headset\s+USB headset\s+alsa$/);
  });

  it('PulseAudio/PipeWire sources and sinks follow the ALSA devices where pactl is, its default named', async () => {
    const room = alsaRoom();
    const tools = fakeTools(sineClip(), { pulse: true });
    const r = await svcInProcess(['audio', 'devices', '--json'], { env: env(room, tools.bin) });
    expect(r.exitCode, r.stderr).toBe(0);
    const pulse = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((d) => d.backend === 'pulse');
    expect(pulse).toEqual([
      {
        kind: 'input',
        index: 4,
        name: 'alsa_input.usb-mic',
        description: 'PulseAudio default, s16le 1ch 48000Hz, running',
        default: false,
        backend: 'pulse',
      },
      {
        kind: 'input',
        index: 5,
        name: 'alsa_output.speakers.monitor',
        description: 'PulseAudio, s16le 2ch 48000Hz, idle',
        default: false,
        backend: 'pulse',
      },
      {
        kind: 'output',
        index: 4,
        name: 'alsa_output.speakers',
        description: 'PulseAudio default, s16le 2ch 48000Hz, idle',
        default: false,
        backend: 'pulse',
      },
      {
        kind: 'output',
        index: 5,
        name: 'bluez_output.headphones',
        description: 'PulseAudio, s16le 2ch 48000Hz, suspended',
        default: false,
        backend: 'pulse',
      },
    ]);
  });
});

describe.concurrent('svc audio test', () => {
  it('records 2 s from the chosen input, plays exactly them on the chosen output, a row per 100 ms', async () => {
    needSpeaker();
    const room = alsaRoom();
    const tools = fakeTools(sineClip());
    const r = await svcProcess(['audio', 'test', '--input-device', '2', '--output-device', 'studio'], {
      env: env(room, tools.bin),
    });
    expect(r.exitCode, r.stderr).toBe(0);
    // the headset (index 2) was recorded, at 24 kHz mono 16-bit
    expect(tools.argv('arecord')).toEqual(['-q', '-c', '1', '-r', '24000', '-f', 'S16_LE', '-D', 'headset']);
    // the studio device played the first two seconds of what was recorded, byte for byte; the others nothing
    const played = readFileSync(room.played('studio'));
    expect(played.length).toBeGreaterThanOrEqual(96_000);
    expect(played.subarray(0, 96_000).equals(SINE.subarray(0, 96_000))).toBe(true);
    expect(played.subarray(96_000).every((b) => b === 0)).toBe(true);
    for (const other of ['default', 'headset'] as const)
      expect(!existsSync(room.played(other)) || statSync(room.played(other)).size === 0).toBe(true);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows).toHaveLength(40);
    expect(rows[0]).toEqual(['record', '0.10', '-15.3', '-12.2']);
    expect(rows[19]).toEqual(['record', '2.00', '-15.3', '-12.2']);
    expect(rows[20]).toEqual(['play', '0.10', '-15.3', '-12.2']);
    expect(rows[39]![0]).toBe('play');
    expect(r.stderr).toBe('recorded 2 s on headset (RMS -15.3, peak -12.2 dBFS), played on studio\n');
  });

  it('--json: an object per 100 ms and a summary; a silent microphone is reported', async () => {
    needSpeaker();
    const room = alsaRoom();
    const silence = writeTemp('silence.wav', encodeWav(Buffer.alloc(96_000), { sampleRate: 24_000, channels: 1 }));
    const r = await svcProcess(['audio', 'test', '--json', '--seconds', '1'], {
      env: env(room, fakeTools(silence).bin),
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events).toHaveLength(21);
    expect(events[0]).toEqual({ phase: 'record', seconds: 0.1, rms_dbfs: -90, peak_dbfs: -90 });
    expect(events[20]).toEqual({
      phase: 'summary',
      seconds: 1,
      rms_dbfs: -90,
      peak_dbfs: -90,
      input_device: 'default',
      output_device: 'default',
    });
    expect(r.stderr).toMatch(/warning: the recording is silent \(peak -90 dBFS\).*--input-device/);
    expect(
      readFileSync(room.played('default'))
        .subarray(0, 48_000)
        .every((b) => b === 0),
    ).toBe(true);
  });

  it('a PulseAudio source is recorded through ALSA’s pulse device, told by PULSE_SOURCE', async () => {
    needSpeaker();
    const room = alsaRoom();
    const tools = fakeTools(sineClip(), { pulse: true });
    const r = await svcProcess(['audio', 'test', '--input-device', 'alsa_input.usb-mic', '--output-device', '1'], {
      env: env(room, tools.bin),
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(tools.argv('arecord').slice(-2)).toEqual(['-D', 'pulse']);
    expect(tools.pulseSource()).toBe('alsa_input.usb-mic');
    expect(statSync(room.played('studio')).size).toBeGreaterThanOrEqual(96_000);
  });

  it('an unknown device is exit 2 listing the devices, before anything is recorded', async () => {
    const room = alsaRoom();
    const tools = fakeTools(sineClip());
    const out = await svcInProcess(['audio', 'test', '--output-device', 'monitors'], { env: env(room, tools.bin) });
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toBe(
      'error: --output-device: "monitors" is not allowed: no output device is named "monitors"; the output devices ' +
        'are:\n  0  default (Built-in audio)\n  1  studio (Studio monitors)\n  2  headset (USB headset)\n' +
        '  3  lineIn (Line input)\nchoose one by index or name (`svc audio devices` lists them)\n',
    );
    const input = await svcInProcess(['audio', 'test', '--input-device', '4'], { env: env(room, tools.bin) });
    expect(input.exitCode).toBe(2);
    expect(input.stderr).toMatch(/^error: --input-device: "4" is not allowed: there is no input device 4; the input/);
    expect(existsSync(join(tools.bin, 'arecord.argv'))).toBe(false);
  });

  it('Ctrl-C while it records: exit 130, nothing played', async () => {
    needSpeaker();
    const room = alsaRoom();
    // as arecord writes it to a pipe: the sizes unknown (0xFFFFFFFF), so the microphone is still on after the clip
    const wav = encodeWav(SINE.subarray(0, 24_000), { sampleRate: 24_000, channels: 1 });
    wav.writeUInt32LE(0xffffffff, 4);
    wav.writeUInt32LE(0xffffffff, 40);
    const short = writeTemp('short.wav', wav);
    const tools = fakeTools(short);
    const proc = spawnSvc(['audio', 'test'], { env: env(room, tools.bin) });
    let out = '';
    // half a second recorded, and the microphone gives no more: Ctrl-C
    await new Promise<void>((resolve, reject) => {
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('record\t0.50\t')) resolve();
      });
      proc.then(() => reject(new Error(`ended by itself: ${out}`)), reject);
    });
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode).toBe(130);
    expect(
      out
        .split('\n')
        .filter(Boolean)
        .every((l) => l.startsWith('record\t')),
    ).toBe(true);
    expect(!existsSync(room.played('default')) || statSync(room.played('default')).size === 0).toBe(true);
  });

  it('--seconds outside 0.5 to 30 is exit 2', async () => {
    const r = await svcInProcess(['audio', 'test', '--seconds', '0.1']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--seconds: 0\.1 is not allowed: .*0\.5.*30/);
  });
});

describe.concurrent('the voice commands choose their devices the same way', () => {
  const it = itWithEmulator();

  it('stt listen --input-device NAME records that device', async ({ emu }) => {
    const room = alsaRoom();
    const clip = wavClip('hello.wav', [{ silence: 200 }, { say: 'hello from the headset' }, { silence: 800 }], 16_000);
    const tools = fakeTools(clip, { hold: false });
    const r = await svcInProcess(['stt', 'listen', '--input', 'mic', '--input-device', 'headset'], {
      emu,
      env: env(room, tools.bin),
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('hello from the headset\n');
    expect(tools.argv('arecord')).toEqual(['-q', '-c', '1', '-r', '16000', '-f', 'S16_LE', '-D', 'headset']);
  });

  const unused = (dir: string) =>
    [
      [
        ['stt', 'listen', '--input', sineClip(), '--input-device', '1'],
        '--input-device: 1 is not allowed: only with the microphone (--input mic)',
      ],
      [
        ['tts', 'say', 'hi', '-o', join(dir, 'hi.mp3'), '--output-device', '1'],
        '--output-device: 1 is not allowed: only when the audio plays on the speaker, not into a file or stdout',
      ],
      [
        ['realtime', 'talk', '--input', sineClip(), '--output', join(dir, 'a.wav'), '--output-device', 'studio'],
        '--output-device: studio is not allowed: only when',
      ],
    ] as const;
  it('a device flag for a file or a pipe is exit 2, not ignored; nothing sent, no file', async ({ emu }) => {
    const dir = tempDir('svc-unused-');
    for (const [args, message] of unused(dir)) {
      const r = await svcInProcess([...args], { emu, env: env(alsaRoom(), fakeTools(sineClip()).bin) });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
    }
    expect(emu.requests()).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('tts say --play --output-device INDEX plays on that device only', async ({ emu }) => {
    needSpeaker();
    const room = alsaRoom();
    const r = await svcProcess(['tts', 'say', 'hello', '--play', '--output-device', '2'], {
      emu,
      env: env(room, fakeTools(sineClip()).bin),
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(statSync(room.played('headset')).size).toBeGreaterThan(1000);
    expect(!existsSync(room.played('default')) || statSync(room.played('default')).size === 0).toBe(true);
  });

  it('a PulseAudio sink plays through ALSA’s pulse device, PULSE_SINK naming it as the device opens', async ({
    emu,
  }) => {
    needSpeaker();
    const room = alsaRoom();
    const tools = fakeTools(sineClip(), { pulse: true });
    const r = await svcProcess(['tts', 'say', 'hello', '--play', '--output-device', 'bluez_output.headphones'], {
      emu,
      env: env(room, tools.bin),
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(statSync(room.played('pulse')).size).toBeGreaterThan(1000);
    expect(room.pulseSink()).toBe('bluez_output.headphones');
    expect(!existsSync(room.played('default')) || statSync(room.played('default')).size === 0).toBe(true);
  });

  for (const args of [
    ['stt', 'listen', '--input', 'mic', '--input-device', 'nope'],
    ['tts', 'say', 'hello', '--play', '--output-device', '9'],
    ['realtime', 'talk', '--input-device', 'nope', '--output', '-'],
    ['realtime', 'talk', '--input', sineClip(), '--output-device', 'nope'],
    ['calls', 'join', 'rtc_x', '--input', 'mic', '--input-device', '12'],
  ])
    it(`${args.join(' ').replace(/\S*sine\.wav/, 'FILE')}: exit 2, devices listed, nothing sent`, async ({ emu }) => {
      const room = alsaRoom();
      const tools = fakeTools(sineClip());
      const r = await svcInProcess(args, { emu, env: env(room, tools.bin), input: '' });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^error: --(in|out)put-device: "(nope|9|12)" is not allowed: .*\n {2}0 {2}default/);
      expect(emu.requests()).toEqual([]);
      expect(existsSync(join(tools.bin, 'arecord.argv'))).toBe(false);
    });
});

describe('svc audio test on a terminal', () => {
  it('a meter redrawn in place while it records and while it plays, then the summary', async () => {
    needSpeaker();
    const room = alsaRoom();
    const r = await svcOnTerminal(['audio', 'test', '--seconds', '1'], { env: env(room, fakeTools(sineClip()).bin) });
    expect(r.exitCode, r.screen).toBe(0);
    const redraws = r.screen.split('\r\u001b[2K').slice(1);
    // a frame per 100 ms: 10 while recording, 10 while playing, each line ending the phase
    expect(redraws).toHaveLength(20);
    expect(redraws[0]).toBe(`recording  0.1 s  ${'█'.repeat(22)}${'·'.repeat(8)}  -15.3 dBFS`);
    expect(redraws[9]).toMatch(/^recording {2}1\.0 s {2}█{22}·{8} {2}-15\.3 dBFS\r?\n$/);
    expect(redraws[19]).toMatch(/^playing {4}1\.0 s {2}█{22}·{8} {2}-15\.3 dBFS\s+recorded 1 s on default /);
    expect(redraws[19]).toMatch(/\(RMS -15\.3, peak -12\.2 dBFS\), played on default\s*$/);
  });
});
