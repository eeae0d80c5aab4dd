// The optional sound-card packages: `speaker` (playback, native ALSA binding) and `mic` (capture through
// `arecord`). Both load lazily and only when audio is really played or recorded, so every file and pipe path
// works on machines without them. Note: loading `speaker` where ALSA has no default device can abort the
// process, which is why nothing imports it before it is needed.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export const INSTALL_HINT = 'install the sound packages: apt-get install libasound2-dev alsa-utils && npm rebuild speaker (or use -o FILE / --input FILE to work with files and pipes)';

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
  once(event: string, fn: (...args: any[]) => void): this;
  on(event: string, fn: (...args: any[]) => void): this;
  removeListener(event: string, fn: (...args: any[]) => void): this;
}

export type SpeakerCtor = new (opts: SpeakerOptions) => SpeakerLike;

let speakerCtor: Promise<SpeakerCtor> | undefined;

export function loadSpeaker(): Promise<SpeakerCtor> {
  speakerCtor ??= (async () => {
    try {
      const mod = (await import('speaker')) as unknown as { default: SpeakerCtor };
      return mod.default;
    } catch (err) {
      speakerCtor = undefined;
      throw new AudioDeviceError(`cannot play audio: the \`speaker\` package is not available (${(err as Error).message.split('\n')[0]}); ${INSTALL_HINT}`);
    }
  })();
  return speakerCtor;
}

export interface MicOptions {
  rate?: string;
  channels?: string;
  device?: string;
  bitwidth?: string;
  encoding?: string;
  endian?: string;
  fileType?: string;
  exitOnSilence?: number;
  debug?: boolean;
}

export interface MicInstance {
  start(): void;
  stop(): void;
  pause(): void;
  resume(): void;
  getAudioStream(): NodeJS.ReadableStream & { on(event: string, fn: (...a: any[]) => void): unknown };
}

export type MicFactory = (opts: MicOptions) => MicInstance;

/** Is `cmd` an executable on PATH? */
export function onPath(cmd: string, env: NodeJS.ProcessEnv = process.env): boolean {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, cmd), constants.X_OK);
      return true;
    } catch {
      // keep looking
    }
  }
  return false;
}

export async function loadMic(env: NodeJS.ProcessEnv = process.env): Promise<MicFactory> {
  // `mic` spawns arecord without an error handler: a missing arecord would crash the process.
  if (process.platform === 'linux' && !onPath('arecord', env)) {
    throw new AudioDeviceError(`cannot record: \`arecord\` is not installed; ${INSTALL_HINT}`);
  }
  try {
    const mod = (await import('mic')) as unknown as { default: MicFactory };
    return mod.default;
  } catch (err) {
    throw new AudioDeviceError(`cannot record: the \`mic\` package is not available (${(err as Error).message.split('\n')[0]}); ${INSTALL_HINT}`);
  }
}
