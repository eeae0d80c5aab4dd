// The optional sound-card package `speaker` (playback, a native binding: ALSA, CoreAudio or WinMM), loaded lazily
// and only when audio is really played, so every file and pipe path works on machines without it. Capture runs
// the backend's program (backend.ts: arecord or sox) as a child. Note: loading `speaker` where ALSA has no
// default device can abort the process, which is why nothing imports it before it is needed. Opening a playback
// device that does not exist aborts the process inside libasound (SIGABRT, uncatchable), so `openSpeaker` first
// opens the device in a child process (`probePlayback`); the capture program runs as a child anyway, and its first
// bytes (or its exit) tell whether the capture device opened (source.ts).
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { childEnvironment } from '../core/environment.js';

export const INSTALL_HINT =
  'install the sound packages: apt-get install libasound2-dev alsa-utils && npm rebuild speaker (or use -o ' +
  'FILE / --input FILE to work with files and pipes)';
/** What to do when there is no playback device. */
export const PLAYBACK_HINT =
  'write the audio to a file with --output FILE (-o FILE) or to stdout with --output - instead, or choose a ' +
  'device with --output-device NAME (`svc audio devices` lists them)';
/** What to do when there is no capture device. */
export const CAPTURE_HINT =
  'read a file with --input FILE or stdin with --input - instead, or choose a device with --input-device ' +
  'NAME (`svc audio devices` lists them)';

/** A microphone or speaker that cannot be used; the message says what to install. */
export class AudioDeviceError extends Error {
  override name = 'AudioDeviceError';
}

export interface SpeakerOptions {
  channels: number;
  bitDepth: number;
  sampleRate: number;
  signed?: boolean;
  device?: string;
}

export interface SpeakerLike {
  write(chunk: Uint8Array, cb?: (err?: Error | null) => void): boolean;
  end(cb?: () => void): this;
  close(flush: boolean): void;
  cork(): void;
  /** Node's Writable state: `writing` while a `_write` (speaker's native write) has not called back */
  readonly _writableState?: { writing?: boolean };
  once(event: string, fn: (...args: any[]) => void): this;
  on(event: string, fn: (...args: any[]) => void): this;
  removeListener(event: string, fn: (...args: any[]) => void): this;
}

export type SpeakerCtor = new (opts: SpeakerOptions) => SpeakerLike;

let speakerCtor: Promise<SpeakerCtor> | undefined;

/**
 * A native module built for another Node (npm installed it under one version, svc runs under another): Node's
 * loader refuses it with "… was compiled against a different Node.js version using NODE_MODULE_VERSION A. This
 * version of Node.js requires NODE_MODULE_VERSION B …". Said as what it is, with the fix.
 */
export function builtForOtherNode(message: string, version: string = process.version): AudioDeviceError | undefined {
  const built = /different Node\.js version using\s+NODE_MODULE_VERSION (\d+)\./.exec(message);
  const needed = /This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/.exec(message);
  const m = built && needed ? [built[1], needed[1]] : undefined;
  if (!m) return undefined;
  return new AudioDeviceError(
    `cannot play audio: the \`speaker\` module was built for another Node.js (module version ${m[0]}; Node ` +
      `${version} needs ${m[1]}): run \`npm rebuild speaker\` with this Node (in svc's folder), or ${PLAYBACK_HINT}`,
  );
}

function loadSpeaker(): Promise<SpeakerCtor> {
  speakerCtor ??= (async () => {
    try {
      const mod = (await import('speaker')) as unknown as { default: SpeakerCtor };
      return mod.default;
    } catch (err) {
      speakerCtor = undefined;
      throw (
        builtForOtherNode(String((err as Error).message)) ??
        new AudioDeviceError(
          `cannot play audio: the \`speaker\` package is not available ` +
            `(${(err as Error).message.split('\n')[0]}); ${INSTALL_HINT}; or ${PLAYBACK_HINT}`,
        )
      );
    }
  })();
  return speakerCtor;
}

export interface PlaybackFormat {
  sampleRate: number;
  channels: number;
  /** ALSA device name (default: ALSA's default) */
  device?: string;
}

/** Opens the device once in a child: a missing device aborts the child, not us. Exit 0 = it opened. */
const PROBE_SCRIPT = `
const [path, rate, channels, device] = process.argv.slice(1);
const Speaker = require(path);
const format = { channels: Number(channels), bitDepth: 16, sampleRate: Number(rate), signed: true };
const s = new Speaker({ ...format, ...(device ? { device } : {}) });
s.on('error', (e) => { process.stderr.write('error: ' + (e && e.message) + '\\n'); process.exit(3); });
s.on('close', () => process.exit(0));
s.end(Buffer.alloc(0)); // opens the device, plays nothing
`;

const probed = new Map<string, Promise<void>>();

/**
 * Can the playback device be opened? Runs `speaker` in a child process on the device with this format (an
 * empty write opens the device and plays nothing). A child that dies (ALSA's assertion) or fails means no
 * device: an AudioDeviceError that says what to do. A child that does not finish in 10 s (a busy device that blocks) is
 * given the benefit of the doubt. Once per device and format.
 */
export function probePlayback(fmt: PlaybackFormat, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const key = `${fmt.device ?? ''}|${env.PULSE_SINK ?? ''}|${fmt.sampleRate}|${fmt.channels}`;
  let p = probed.get(key);
  if (!p) {
    p = runProbe(fmt, env);
    probed.set(key, p);
  }
  return p;
}

async function runProbe(fmt: PlaybackFormat, env: NodeJS.ProcessEnv): Promise<void> {
  let path: string;
  try {
    path = createRequire(import.meta.url).resolve('speaker');
  } catch {
    await loadSpeaker(); // throws the "not available" error
    return;
  }
  const { spawn } = await import('node:child_process');
  const child = spawn(
    process.execPath,
    ['-e', PROBE_SCRIPT, path, String(fmt.sampleRate), String(fmt.channels), fmt.device ?? ''],
    { env: childEnvironment(env), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    if (stderr.length < 4000) stderr += d;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const result = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.on('error', (error) => resolve({ code: null, signal: null, error }));
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  clearTimeout(timer);
  if (result.error) return; // cannot run the probe: no verdict, play as before
  if (result.signal === 'SIGKILL') return; // timed out: the device exists but is busy
  if (result.code === 0) return;
  const otherNode = builtForOtherNode(stderr);
  if (otherNode) throw otherNode;
  const device = fmt.device ? `"${fmt.device}"` : 'the default device';
  const lines = stderr.split('\n').map((l) => l.trim());
  const alsa =
    lines.find((l) => l.startsWith('ALSA lib')) ?? lines.find((l) => /error/i.test(l) && !/Assertion/.test(l));
  const detail = alsa
    ? ` (ALSA: ${alsa
        .replace(/^ALSA lib \S+\s*/, '')
        .replace(/^\[[^\]]*\]\s*/, '')
        .replace(/^error:\s*/, '')
        .slice(0, 200)})`
    : '';
  throw new AudioDeviceError(
    `cannot play audio: no sound card, or ${device} cannot be opened${detail}; ${PLAYBACK_HINT}`,
  );
}

/** The `speaker` class, once the device is known to open (a missing device never reaches the native module). */
export async function openSpeaker(fmt: PlaybackFormat, env: NodeJS.ProcessEnv = process.env): Promise<SpeakerCtor> {
  await probePlayback(fmt, env);
  return loadSpeaker();
}

/** Is `cmd` an executable on PATH? (on Windows also with the extensions of PATHEXT) */
export function onPath(
  cmd: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): boolean {
  const exts = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter(Boolean)] : [''];
  for (const dir of (env.PATH ?? env.Path ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      try {
        accessSync(join(dir, cmd + ext), constants.X_OK);
        return true;
      } catch {
        // keep looking
      }
    }
  }
  return false;
}
