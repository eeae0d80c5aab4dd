// The sound backend of each platform, chosen at run time, tested here (Linux) by injecting the platform and putting
// fake tools first on PATH that record their argv: which program lists the devices, which records, which plays a
// named device, with which arguments; and that the audio goes through them (capture read back, playback written).
// Linux itself is tested for real through ALSA (test/commands/audio/audio.test.ts).
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeWav } from 'svc-formats/audio-codecs';
import { audioBackend, parseAlsaList, playbackRoute, WINDOWS_LIST_SCRIPT } from '../../src/audio/backend.js';
import { chooseDevice } from '../../src/audio/choose.js';
import { openSink } from '../../src/audio/sink.js';
import { openSource, readAllPcm } from '../../src/audio/source.js';
import { UsageError } from '../../src/core/errors.js';
import { tempDir } from '../helpers/files.js';

const PROFILER = {
  SPAudioDataType: [
    {
      _items: [
        {
          _name: 'MacBook Pro Microphone',
          coreaudio_default_audio_input_device: 'spaudio_yes',
          coreaudio_device_input: 1,
          coreaudio_device_manufacturer: 'Apple Inc.',
          coreaudio_device_srate: 48000,
          coreaudio_device_transport: 'coreaudio_device_type_builtin',
        },
        {
          _name: 'MacBook Pro Speakers',
          coreaudio_default_audio_output_device: 'spaudio_yes',
          coreaudio_default_audio_system_device: 'spaudio_yes',
          coreaudio_device_output: 2,
          coreaudio_device_manufacturer: 'Apple Inc.',
          coreaudio_device_srate: 48000,
          coreaudio_device_transport: 'coreaudio_device_type_builtin',
        },
        {
          _name: 'Studio Display',
          coreaudio_device_input: 2,
          coreaudio_device_output: 2,
          coreaudio_device_manufacturer: 'Apple Inc.',
          coreaudio_device_transport: 'coreaudio_device_type_usb',
        },
      ],
      _name: 'coreaudio_device',
    },
  ],
};

const ENDPOINTS = [
  {
    Name: 'Microphone (Realtek High Definition Audio)',
    DeviceID: 'SWD\\MMDEVAPI\\{0.0.1.00000000}.{1a}',
    Status: 'OK',
  },
  { Name: 'Speakers (Realtek High Definition Audio)', DeviceID: 'SWD\\MMDEVAPI\\{0.0.0.00000000}.{2b}', Status: 'OK' },
  { Name: 'Headset Earphone (Jabra Evolve2 65 USB)', DeviceID: 'SWD\\MMDEVAPI\\{0.0.0.00000000}.{3c}', Status: 'OK' },
  {
    Name: 'Line In (Realtek High Definition Audio)',
    DeviceID: 'SWD\\MMDEVAPI\\{0.0.1.00000000}.{4d}',
    Status: 'Unknown',
  },
];

const CLIP_PCM = Buffer.from(Array.from({ length: 4800 }, (_, i) => (i * 37) % 256));

/**
 * Fake tools on PATH: `system_profiler` and `powershell.exe` print their lists; `sox` records its argv, writes a
 * WAV when it captures (its output is `-`) and keeps what it is given to play when its input is `-`.
 */
function fakeBin(): { env: NodeJS.ProcessEnv; argv: (tool: string) => string[]; played: () => Buffer } {
  const bin = tempDir('svc-fake-audio-');
  const clip = join(bin, 'clip.wav');
  writeFileSync(clip, encodeWav(CLIP_PCM, { sampleRate: 24_000, channels: 1 }));
  const tool = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\nprintf '%s\\n' "$@" > "${bin}/${name}.argv"\n${body}`);
    chmodSync(join(bin, name), 0o755);
  };
  writeFileSync(join(bin, 'profiler.json'), JSON.stringify(PROFILER));
  writeFileSync(join(bin, 'endpoints.json'), JSON.stringify(ENDPOINTS));
  tool('system_profiler', `cat "${bin}/profiler.json"\n`);
  tool('powershell.exe', `cat "${bin}/endpoints.json"\n`);
  tool('sox', `for a; do last="$a"; done\nif [ "$last" = "-" ]; then cat "${clip}"; else cat > "${bin}/played"; fi\n`);
  return {
    env: { PATH: `${bin}:/usr/bin:/bin` },
    argv: (name) =>
      readFileSync(join(bin, `${name}.argv`), 'utf8')
        .split('\n')
        .slice(0, -1),
    played: () => readFileSync(join(bin, 'played')),
  };
}

async function capture(platform: NodeJS.Platform, device: string | undefined, env: NodeJS.ProcessEnv) {
  const src = await openSource('mic', { sampleRate: 24_000, channels: 1, device, env, platform });
  const pcm = await readAllPcm(src);
  expect(pcm.equals(CLIP_PCM)).toBe(true);
}

async function play(platform: NodeJS.Platform, device: string, env: NodeJS.ProcessEnv) {
  const sink = await openSink('speaker', { format: { sampleRate: 24_000, channels: 1 }, device, env, platform });
  await sink.write(CLIP_PCM.subarray(0, 2400));
  await sink.write(CLIP_PCM.subarray(2400));
  await sink.end();
}

describe('macOS: CoreAudio through sox, devices from system_profiler', () => {
  it('lists the CoreAudio devices per kind with the defaults system_profiler marks', async () => {
    const fake = fakeBin();
    const backend = audioBackend('darwin');
    const inputs = await backend.list('input', fake.env);
    expect(fake.argv('system_profiler')).toEqual(['SPAudioDataType', '-json']);
    expect(inputs).toEqual({
      notes: [],
      devices: [
        {
          kind: 'input',
          index: 0,
          name: 'MacBook Pro Microphone',
          description: 'Apple Inc., builtin, 1 ch, 48000 Hz',
          default: true,
          backend: 'coreaudio',
        },
        {
          kind: 'input',
          index: 1,
          name: 'Studio Display',
          description: 'Apple Inc., usb, 2 ch',
          default: false,
          backend: 'coreaudio',
        },
      ],
    });
    const outputs = await backend.list('output', fake.env);
    expect(outputs.devices.map((d) => [d.index, d.name, d.default])).toEqual([
      [0, 'MacBook Pro Speakers', true],
      [1, 'Studio Display', false],
    ]);
  });

  it('records the chosen device with sox -t coreaudio (by index), WAV out at the asked format', async () => {
    const fake = fakeBin();
    await capture('darwin', '1', fake.env);
    expect(fake.argv('sox')).toEqual(
      ['-q', '-t', 'coreaudio', 'Studio Display', '-c', '1', '-r', '24000', '-b', '16', '-e', 'signed-integer'].concat([
        '-t',
        'wav',
        '-',
      ]),
    );
  });

  it('without --input-device: the system default', async () => {
    const fake = fakeBin();
    await capture('darwin', undefined, fake.env);
    expect(fake.argv('sox').slice(0, 4)).toEqual(['-q', '-t', 'coreaudio', 'default']);
    expect(existsSync(join(fake.env.PATH!.split(':')[0]!, 'system_profiler.argv'))).toBe(false);
  });

  it('a named output that is not the default plays through sox -t coreaudio, the PCM on its stdin', async () => {
    const fake = fakeBin();
    await play('darwin', 'Studio Display', fake.env);
    expect(fake.argv('sox')).toEqual(
      ['-q', '-t', 'raw', '-r', '24000', '-e', 'signed-integer', '-b', '16', '-c', '1', '-L', '-'].concat([
        '-t',
        'coreaudio',
        'Studio Display',
      ]),
    );
    expect(fake.played().equals(CLIP_PCM)).toBe(true);
  });

  it('the default output (no flag, or the default by name) is speaker’s CoreAudio', () => {
    const b = audioBackend('darwin');
    const fmt = { sampleRate: 24_000, channels: 1 };
    expect(b.playback(undefined, fmt)).toEqual({ via: 'speaker', env: {} });
    const speakers = {
      kind: 'output',
      index: 0,
      name: 'MacBook Pro Speakers',
      description: '',
      default: true,
    } as const;
    expect(b.playback({ ...speakers, backend: 'coreaudio' }, fmt)).toEqual({ via: 'speaker', env: {} });
  });

  it('an unknown device is a usage error listing the CoreAudio devices', async () => {
    const fake = fakeBin();
    const err = await chooseDevice('input', 'AirPods', { env: fake.env, platform: 'darwin' }).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain('no input device is named "AirPods"; the input devices are:\n  0  MacBook Pro');
  });
});

describe('Windows: WinMM through sox -t waveaudio, endpoints from PowerShell', () => {
  it('lists default, then the working capture or render endpoints', async () => {
    const fake = fakeBin();
    const backend = audioBackend('win32');
    const inputs = await backend.list('input', fake.env);
    expect(fake.argv('powershell.exe')).toEqual(['-NoProfile', '-NonInteractive', '-Command', WINDOWS_LIST_SCRIPT]);
    expect(inputs.devices.map((d) => [d.index, d.name, d.default, d.backend])).toEqual([
      [0, 'default', true, 'waveaudio'],
      [1, 'Microphone (Realtek High Definition Audio)', false, 'waveaudio'],
    ]);
    const outputs = await backend.list('output', fake.env);
    expect(outputs.devices.map((d) => d.name)).toEqual([
      'default',
      'Speakers (Realtek High Definition Audio)',
      'Headset Earphone (Jabra Evolve2 65 USB)',
    ]);
  });

  it('records with sox -t waveaudio, the device by its WinMM name (31 characters)', async () => {
    const fake = fakeBin();
    await capture('win32', 'Microphone (Realtek High Definition Audio)', fake.env);
    expect(fake.argv('sox').slice(0, 4)).toEqual(['-q', '-t', 'waveaudio', 'Microphone (Realtek High Defini']);
    await capture('win32', '0', fake.env);
    expect(fake.argv('sox').slice(0, 4)).toEqual(['-q', '-t', 'waveaudio', 'default']);
  });

  it('a named output plays through sox -t waveaudio; the default through speaker’s WinMM', async () => {
    const fake = fakeBin();
    await play('win32', '2', fake.env);
    expect(fake.argv('sox').slice(-3)).toEqual(['-t', 'waveaudio', 'Headset Earphone (Jabra Evolve2']);
    expect(fake.played().equals(CLIP_PCM)).toBe(true);
    expect(audioBackend('win32').playback(undefined, { sampleRate: 24_000, channels: 1 })).toEqual({
      via: 'speaker',
      env: {},
    });
  });

  it('without PowerShell: only default, with a note; a name then goes to sox as given', async () => {
    const env = { PATH: tempDir('svc-empty-') };
    const listing = await audioBackend('win32').list('output', env);
    expect(listing.devices.map((d) => d.name)).toEqual(['default']);
    expect(listing.notes).toEqual(['only the default device: `powershell.exe` is not installed']);
    const d = await chooseDevice('output', 'USB Speakers', { env, platform: 'win32' });
    expect(d?.name).toBe('USB Speakers');
    const idx = await chooseDevice('output', '3', { env, platform: 'win32' }).catch((e) => e);
    expect(idx).toBeInstanceOf(UsageError);
  });

  it('without sox: recording is refused with what to install, before anything runs', async () => {
    const env = { PATH: tempDir('svc-empty-') };
    const err = await openSource('mic', { sampleRate: 24_000, device: undefined, env, platform: 'win32' }).catch(
      (e) => e,
    );
    expect(err.message).toMatch(/^cannot record: `sox` is not installed \(install SoX .*choco install sox/);
  });
});

describe('Linux: the listing formats', () => {
  it('arecord -L: the name, then its indented description lines', () => {
    const text =
      'null\n    Discard all samples (playback) or generate zero samples (capture)\ndefault\n    Default ALSA ' +
      'Output (currently PipeWire Media Server)\nsysdefault:CARD=PCH\n    HDA Intel PCH, ALC3246 Analog\n' +
      '    Default Audio Device\n';
    expect(parseAlsaList(text)).toEqual([
      { name: 'null', description: 'Discard all samples (playback) or generate zero samples (capture)' },
      { name: 'default', description: 'Default ALSA Output (currently PipeWire Media Server)' },
      { name: 'sysdefault:CARD=PCH', description: 'HDA Intel PCH, ALC3246 Analog, Default Audio Device' },
    ]);
  });

  it('an ALSA name with arguments goes to ALSA as given (ALSA lists one form); others must be listed', async () => {
    const env = { ALSA_CONFIG_PATH: join(import.meta.dirname, '..', 'fixtures', 'asound-null.conf') };
    const d = await chooseDevice('output', 'plughw:1,0', { env, platform: 'linux' });
    expect(d).toMatchObject({ name: 'plughw:1,0', backend: 'alsa' });
    await expect(chooseDevice('output', 'plughw', { env, platform: 'linux' })).rejects.toThrow(UsageError);
  });
});

describe('the single executable: no speaker module, the platform player plays (issue 40)', () => {
  const fmt = { sampleRate: 24_000, channels: 1 };
  const named = (name: string, backend: 'alsa' | 'pulse' | 'coreaudio' | 'waveaudio', isDefault = false) =>
    ({ kind: 'output', index: 1, name, description: '', default: isDefault, backend }) as const;
  const raw = ['-t', 'raw', '-r', '24000', '-e', 'signed-integer', '-b', '16', '-c', '1', '-L', '-'];

  it('Linux: aplay reads raw PCM on the chosen ALSA device, a PulseAudio sink through ALSA’s pulse device', () => {
    const b = audioBackend('linux');
    const aplay = ['-q', '-t', 'raw', '-f', 'S16_LE', '-r', '24000', '-c', '1', '-D'];
    expect(playbackRoute(b, undefined, fmt, false)).toEqual({
      via: 'command',
      run: { command: 'aplay', args: [...aplay, 'default'], env: {} },
    });
    expect(playbackRoute(b, named('hw:1,0', 'alsa'), fmt, false)).toMatchObject({
      run: { args: [...aplay, 'hw:1,0'], env: {} },
    });
    expect(playbackRoute(b, named('alsa_output.usb', 'pulse'), fmt, false)).toMatchObject({
      run: { args: [...aplay, 'pulse'], env: { PULSE_SINK: 'alsa_output.usb' } },
    });
    // where speaker loads (npm), the route is as before
    expect(playbackRoute(b, undefined, fmt, true)).toEqual({ via: 'speaker', device: undefined, env: {} });
  });

  it('macOS and Windows: SoX plays the default device too (CoreAudio, WinMM); a named one as before', () => {
    for (const [platform, type] of [
      ['darwin', 'coreaudio'],
      ['win32', 'waveaudio'],
    ] as const) {
      const b = audioBackend(platform);
      const route = (d?: ReturnType<typeof named>) => playbackRoute(b, d, fmt, false);
      const sox = (device: string) => ({
        via: 'command',
        run: { command: 'sox', args: ['-q', ...raw, '-t', type, device], env: {} },
      });
      expect(route()).toEqual(sox('default'));
      expect(route(named('Speakers', type, true))).toEqual(sox('default'));
      expect(route(named('Studio Display', type))).toEqual(sox('Studio Display'));
    }
  });
});
