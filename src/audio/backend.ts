// The one seam between svc and the sound system of each platform, chosen at run time (the platform is a parameter
// so that tests inject darwin or win32): how devices are listed, which program captures the microphone, and how
// the speaker plays. Every backend follows the same rule: a device is probed before it is opened in this process
// (capture runs in a child anyway; `speaker` is probed in a child, devices.ts), so a missing device is an error
// that says what to do, never a native abort.
//   linux   capture `arecord`; playback `speaker` (ALSA); devices `arecord -L` / `aplay -L`, and PulseAudio /
//           PipeWire sources and sinks from `pactl` when it is installed (used through ALSA's `pulse` device)
//   darwin  capture `sox -t coreaudio`; playback `speaker` (CoreAudio) on the default device, `sox -t coreaudio`
//           on a named one; devices `system_profiler SPAudioDataType -json`
//   win32   capture `sox -t waveaudio`; playback `speaker` (WinMM) on the default device, `sox -t waveaudio` on a
//           named one; devices from PowerShell (`Get-CimInstance Win32_PnPEntity`, the audio endpoints)
import { IN_EXECUTABLE } from 'svc-formats/assets';
import { childEnvironment } from '../core/environment.js';

export type AudioPlatform = 'linux' | 'darwin' | 'win32';
export type DeviceKind = 'input' | 'output';

export interface AudioDevice {
  kind: DeviceKind;
  /** position among the devices of its kind, from 0 (what --input-device 2 means) */
  index: number;
  /** what the backend opens (ALSA PCM name, PulseAudio name, CoreAudio or WinMM device name) */
  name: string;
  description: string;
  /** the device svc uses when no --input-device / --output-device is given */
  default: boolean;
  backend: 'alsa' | 'pulse' | 'coreaudio' | 'waveaudio';
}

export interface DeviceListing {
  devices: AudioDevice[];
  /** why a list is missing or partial (a tool not installed, a tool that failed) */
  notes: string[];
}

/** A program to start: capture writes WAV to its stdout, command playback reads raw PCM on its stdin. */
export interface AudioCommand {
  command: string;
  args: string[];
  /** added to the child's environment (PulseAudio device names) */
  env: Record<string, string>;
}

export interface PcmSpec {
  sampleRate: number;
  channels: number;
}

/** How the speaker plays on a device: through `speaker` (an ALSA device name there), or by a program. */
export type PlaybackRoute =
  | { via: 'speaker'; device?: string; env: Record<string, string> }
  | { via: 'command'; run: AudioCommand };

export interface AudioBackend {
  platform: AudioPlatform;
  /** what svc uses here, for messages and `svc audio devices` */
  describe: string;
  /** the program that captures, and how to install it */
  captureTool: string;
  install: string;
  list(kind: DeviceKind, env: NodeJS.ProcessEnv): Promise<DeviceListing>;
  capture(device: AudioDevice | undefined, fmt: PcmSpec): AudioCommand;
  playback(device: AudioDevice | undefined, fmt: PcmSpec): PlaybackRoute;
  /** the platform's player of raw PCM on its stdin, where `speaker` cannot be loaded (the single executable) */
  player(device: AudioDevice | undefined, fmt: PcmSpec): AudioCommand;
}

/**
 * How to play on a device: the backend's route, except that the single executable (which cannot load the native
 * `speaker` module) plays through the platform's player: `aplay` on Linux, SoX on macOS and Windows.
 */
export function playbackRoute(
  backend: AudioBackend,
  device: AudioDevice | undefined,
  fmt: PcmSpec,
  speakerLoadable = !IN_EXECUTABLE,
): PlaybackRoute {
  const route = backend.playback(device, fmt);
  return route.via === 'speaker' && !speakerLoadable ? { via: 'command', run: backend.player(device, fmt) } : route;
}

export function audioPlatform(platform: NodeJS.Platform = process.platform): AudioPlatform {
  return platform === 'darwin' || platform === 'win32' ? platform : 'linux';
}

/** The backend of this (or an injected) platform. */
export function audioBackend(platform: NodeJS.Platform = process.platform): AudioBackend {
  const p = audioPlatform(platform);
  return p === 'darwin' ? MACOS : p === 'win32' ? WINDOWS : LINUX;
}

/** Run a listing tool: its stdout, or why it could not be run. */
export async function runTool(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ ok: true; stdout: string } | { ok: false; why: string }> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { env: childEnvironment(env), timeout: 10_000, maxBuffer: 4 << 20, windowsHide: true },
      (err, stdout, stderr) => {
        if (!err) return resolve({ ok: true, stdout: String(stdout) });
        const e = err as NodeJS.ErrnoException & { killed?: boolean };
        if (e.code === 'ENOENT') return resolve({ ok: false, why: `\`${command}\` is not installed` });
        const said = String(stderr).trim().split('\n')[0]?.slice(0, 200);
        resolve({ ok: false, why: `\`${command} ${args.join(' ')}\` failed${said ? ` (${said})` : ''}` });
      },
    );
  });
}

function numbered(kind: DeviceKind, rows: Omit<AudioDevice, 'kind' | 'index'>[]): AudioDevice[] {
  return rows.map((r, index) => ({ kind, index, ...r }));
}

// ---- Linux

/** `arecord -L` / `aplay -L`: a PCM name on its own line, its description on the indented lines below. */
export function parseAlsaList(text: string): { name: string; description: string }[] {
  const out: { name: string; description: string }[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    if (/^\s/.test(line)) {
      const last = out[out.length - 1];
      if (last) last.description = last.description ? `${last.description}, ${line.trim()}` : line.trim();
    } else out.push({ name: line.trim(), description: '' });
  }
  return out;
}

/** `pactl list short sources|sinks`: index, name, driver, sample spec, state, tab-separated. */
export function parsePactlShort(text: string): { name: string; description: string }[] {
  return text
    .split('\n')
    .map((l) => l.split('\t'))
    .filter((f) => f.length >= 2 && f[1])
    .map((f) => ({ name: f[1]!, description: [f[3], f[4]?.toLowerCase()].filter(Boolean).join(', ') }));
}

async function linuxList(kind: DeviceKind, env: NodeJS.ProcessEnv): Promise<DeviceListing> {
  const notes: string[] = [];
  const rows: Omit<AudioDevice, 'kind' | 'index'>[] = [];
  const alsa = await runTool(kind === 'input' ? 'arecord' : 'aplay', ['-L'], env);
  if (alsa.ok) {
    for (const d of parseAlsaList(alsa.stdout)) rows.push({ ...d, default: d.name === 'default', backend: 'alsa' });
  } else notes.push(`no ALSA devices: ${alsa.why}`);
  if (!rows.some((r) => r.name === 'default'))
    rows.unshift({ name: 'default', description: "ALSA's default device", default: true, backend: 'alsa' });
  const pulse = await runTool('pactl', ['list', 'short', kind === 'input' ? 'sources' : 'sinks'], env);
  if (pulse.ok) {
    const info = await runTool('pactl', ['info'], env);
    const key = kind === 'input' ? 'Default Source' : 'Default Sink';
    const def = info.ok ? new RegExp(`^${key}: (.+)$`, 'm').exec(info.stdout)?.[1]?.trim() : undefined;
    for (const d of parsePactlShort(pulse.stdout)) {
      const note = d.name === def ? 'PulseAudio default' : 'PulseAudio';
      rows.push({
        name: d.name,
        description: [note, d.description].filter(Boolean).join(', '),
        default: false,
        backend: 'pulse',
      });
    }
  }
  return { devices: numbered(kind, rows), notes };
}

const LINUX: AudioBackend = {
  platform: 'linux',
  describe: 'ALSA (arecord, speaker); PulseAudio/PipeWire names through pactl',
  captureTool: 'arecord',
  install: 'apt-get install alsa-utils libasound2-dev && npm rebuild speaker',
  list: linuxList,
  capture(device, fmt): AudioCommand {
    // a PulseAudio source is recorded through ALSA's `pulse` device, told which source by PULSE_SOURCE
    const pulse = device?.backend === 'pulse';
    const name = pulse ? 'pulse' : (device?.name ?? 'default');
    return {
      command: 'arecord',
      args: ['-q', '-c', String(fmt.channels), '-r', String(fmt.sampleRate), '-f', 'S16_LE', '-D', name],
      env: pulse ? { PULSE_SOURCE: device!.name } : ({} as Record<string, string>),
    };
  },
  playback(device): PlaybackRoute {
    if (device?.backend === 'pulse') return { via: 'speaker', device: 'pulse', env: { PULSE_SINK: device.name } };
    return { via: 'speaker', device: device?.name, env: {} };
  },
  player(device, fmt): AudioCommand {
    const pulse = device?.backend === 'pulse';
    const raw = ['-q', '-t', 'raw', '-f', 'S16_LE', '-r', String(fmt.sampleRate), '-c', String(fmt.channels)];
    return {
      command: 'aplay',
      args: [...raw, '-D', pulse ? 'pulse' : (device?.name ?? 'default')],
      env: pulse ? { PULSE_SINK: device!.name } : ({} as Record<string, string>),
    };
  },
};

// ---- macOS and Windows: sox captures (and plays on a named device)

function soxCapture(type: 'coreaudio' | 'waveaudio', name: string, fmt: PcmSpec): AudioCommand {
  // the options after the device are the output's: sox converts from what the device gives
  return {
    command: 'sox',
    args: ['-q', '-t', type, name, '-c', String(fmt.channels), '-r', String(fmt.sampleRate), '-b', '16', '-e'],
    env: {},
  };
}

function soxArgs(type: 'coreaudio' | 'waveaudio', device: AudioDevice | undefined, fmt: PcmSpec): AudioCommand {
  const c = soxCapture(type, deviceArg(type, device), fmt);
  c.args.push('signed-integer', '-t', 'wav', '-');
  return c;
}

function soxPlayback(type: 'coreaudio' | 'waveaudio', device: AudioDevice | undefined, fmt: PcmSpec): AudioCommand {
  const raw = ['-t', 'raw', '-r', String(fmt.sampleRate), '-e', 'signed-integer', '-b', '16'];
  return {
    command: 'sox',
    args: ['-q', ...raw, '-c', String(fmt.channels), '-L', '-', '-t', type, deviceArg(type, device)],
    env: {},
  };
}

/** WinMM names are at most 31 characters: sox is given the name as WinMM knows it. */
function deviceArg(type: 'coreaudio' | 'waveaudio', device: AudioDevice | undefined): string {
  if (!device) return 'default';
  return type === 'waveaudio' ? device.name.slice(0, 31) : device.name;
}

interface ProfilerItem {
  _name?: string;
  coreaudio_device_input?: number;
  coreaudio_device_output?: number;
  coreaudio_default_audio_input_device?: string;
  coreaudio_default_audio_output_device?: string;
  coreaudio_device_manufacturer?: string;
  coreaudio_device_transport?: string;
  coreaudio_device_srate?: number;
}

/** `system_profiler SPAudioDataType -json`: the CoreAudio devices with their channel counts and defaults. */
export function parseSystemProfiler(text: string, kind: DeviceKind): Omit<AudioDevice, 'kind' | 'index'>[] {
  const doc = JSON.parse(text) as { SPAudioDataType?: { _items?: ProfilerItem[] }[] };
  const items = (doc.SPAudioDataType ?? []).flatMap((g) => g._items ?? []);
  const channels = (i: ProfilerItem) => (kind === 'input' ? i.coreaudio_device_input : i.coreaudio_device_output);
  return items
    .filter((i) => i._name && (channels(i) ?? 0) > 0)
    .map((i) => {
      const transport = i.coreaudio_device_transport?.replace(/^coreaudio_device_type_/, '');
      const rate = i.coreaudio_device_srate ? `${i.coreaudio_device_srate} Hz` : undefined;
      const about = [i.coreaudio_device_manufacturer, transport, `${channels(i)} ch`, rate].filter(Boolean);
      const flag = kind === 'input' ? i.coreaudio_default_audio_input_device : i.coreaudio_default_audio_output_device;
      return { name: i._name!, description: about.join(', '), default: flag === 'spaudio_yes', backend: 'coreaudio' };
    });
}

const MACOS: AudioBackend = {
  platform: 'darwin',
  describe: 'CoreAudio (sox for capture and named devices, speaker for the default output)',
  captureTool: 'sox',
  install: 'brew install sox',
  async list(kind, env) {
    const r = await runTool('system_profiler', ['SPAudioDataType', '-json'], env);
    if (!r.ok) return { devices: [], notes: [`no device list: ${r.why}`] };
    try {
      return { devices: numbered(kind, parseSystemProfiler(r.stdout, kind)), notes: [] };
    } catch (err) {
      return { devices: [], notes: [`no device list: system_profiler gave no JSON (${(err as Error).message})`] };
    }
  },
  capture: (device, fmt) => soxArgs('coreaudio', device, fmt),
  playback: (device, fmt) =>
    device && !device.default
      ? { via: 'command', run: soxPlayback('coreaudio', device, fmt) }
      : { via: 'speaker', env: {} },
  player: (device, fmt) => soxPlayback('coreaudio', device?.default ? undefined : device, fmt),
};

/** The PowerShell query of the audio endpoints (render and capture), as JSON. */
export const WINDOWS_LIST_SCRIPT =
  'Get-CimInstance Win32_PnPEntity -Filter "PNPClass=\'AudioEndpoint\'" | ' +
  'Select-Object Name,DeviceID,Status | ConvertTo-Json -Compress';

/**
 * The endpoints of Win32_PnPEntity: a DeviceID `SWD\MMDEVAPI\{0.0.1.00000000}.{…}` is a capture endpoint,
 * `{0.0.0.00000000}` a render one. Windows' own default is `default` (WAVE_MAPPER), listed first.
 */
export function parseWindowsEndpoints(text: string, kind: DeviceKind): Omit<AudioDevice, 'kind' | 'index'>[] {
  const parsed = text.trim() ? (JSON.parse(text) as unknown) : [];
  const rows = (Array.isArray(parsed) ? parsed : [parsed]) as { Name?: string; DeviceID?: string; Status?: string }[];
  const flow = kind === 'input' ? '{0.0.1.' : '{0.0.0.';
  const found = rows
    .filter((r) => r.Name && r.DeviceID?.toUpperCase().includes(`MMDEVAPI\\${flow}`) && (r.Status ?? 'OK') === 'OK')
    .map((r) => ({ name: r.Name!, description: 'WinMM endpoint', default: false, backend: 'waveaudio' as const }));
  return [{ name: 'default', description: "Windows' default device", default: true, backend: 'waveaudio' }, ...found];
}

const WINDOWS: AudioBackend = {
  platform: 'win32',
  describe: 'WinMM (sox -t waveaudio for capture and named devices, speaker for the default output)',
  captureTool: 'sox',
  install: 'install SoX (https://sourceforge.net/projects/sox/ or `choco install sox.portable`) and put it on PATH',
  async list(kind, env) {
    const args = ['-NoProfile', '-NonInteractive', '-Command', WINDOWS_LIST_SCRIPT];
    const r = await runTool('powershell.exe', args, env);
    const notes = r.ok ? [] : [`only the default device: ${r.why}`];
    let rows = parseWindowsEndpoints('', kind);
    if (r.ok) {
      try {
        rows = parseWindowsEndpoints(r.stdout, kind);
      } catch (err) {
        notes.push(`only the default device: PowerShell gave no JSON (${(err as Error).message})`);
      }
    }
    return { devices: numbered(kind, rows), notes };
  },
  capture: (device, fmt) => soxArgs('waveaudio', device?.default ? undefined : device, fmt),
  playback: (device, fmt) =>
    device && !device.default
      ? { via: 'command', run: soxPlayback('waveaudio', device, fmt) }
      : { via: 'speaker', env: {} },
  player: (device, fmt) => soxPlayback('waveaudio', device?.default ? undefined : device, fmt),
};
