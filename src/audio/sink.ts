// Audio sinks: the speaker (`speaker`, loaded lazily), a file, or stdout. `write` takes PCM s16le in the
// sink's format; a file or stdout gets it encoded in a codec (WAV by default, with its sizes patched when a
// file ends; raw PCM, mu-law, A-law or MP3 by extension or `codec`). `clear()` drops what has not been
// played yet (barge-in). Encoded bytes that are already in the wanted codec can bypass the PCM path with
// `openByteSink`. Files go through the atomic writer: `end()` puts a complete file in place, `abort()` leaves the
// target as it was.
import { AtomicFile } from '../core/atomic-file.js';
import { Mp3Encoder, encodeSamples, wavHeader } from 'svc-formats/audio-codecs';
import { AudioDeviceError, PLAYBACK_HINT, onPath, openSpeaker, type SpeakerCtor, type SpeakerLike } from './devices.js';
import { audioBackend, playbackRoute, type AudioCommand, type AudioDevice } from './backend.js';
import { chooseDevice } from './choose.js';
import { childEnvironment } from '../core/environment.js';
import { fail } from '../core/validate.js';
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { codecFromPath, type Codec, type PcmFormat } from 'svc-formats/audio-format';

export type SinkSpec = 'speaker' | '-' | (string & {});

/** an output device is for the speaker: with a file or stdout it would be ignored */
export const ONLY_SPEAKER = 'only when the audio plays on the speaker, not into a file or stdout';

export interface SinkOptions {
  /** format of the PCM given to write() */
  format: PcmFormat;
  /** replace an existing file (--force); otherwise one that appears meanwhile is not replaced */
  replace?: boolean;
  /** file/stdout codec (default: by file extension, else wav) */
  codec?: Codec;
  /** MP3 bit rate (bits/s, default 128000) */
  bitRate?: number;
  /** playback device for the speaker: an index or name from `svc audio devices` */
  device?: string;
  /** the device, when the caller chose it already (chooseDevice) */
  chosen?: AudioDevice;
  env?: NodeJS.ProcessEnv;
  /** the sound system's platform (default: this one; tests inject darwin and win32) */
  platform?: NodeJS.Platform;
  /** stdout for `-` (default process.stdout): the command's Output (its writeBytes), or a stream */
  stdout?: StdoutBytes;
}

export interface AudioSink {
  readonly kind: 'speaker' | 'file' | 'stdout';
  readonly format: PcmFormat;
  /** codec written (files and stdout); `pcm` for the speaker */
  readonly codec: Codec;
  /**
   * queue PCM for playback / writing; resolves when it was handed on (back-pressure). `handed` is called when the
   * bytes reached the device (the speaker's native write to ALSA returned) or the file/stdout took them.
   */
  write(pcm: Buffer, handed?: () => void): Promise<void>;
  /** stop playback now and drop what is queued (barge-in); later writes play again */
  clear(): void;
  /** flush, finish the file (WAV sizes) or let the speaker drain; resolves when done */
  end(): Promise<void>;
  /** the command failed: a file is not written (its target untouched), the speaker stops */
  abort(): Promise<void>;
}

export async function openSink(spec: SinkSpec, opts: SinkOptions): Promise<AudioSink> {
  if (spec === 'speaker') return openSpeakerSink(opts);
  if (opts.device !== undefined) fail('--output-device', opts.device, ONLY_SPEAKER);
  const codec = opts.codec ?? (spec === '-' ? 'wav' : (codecFromPath(spec) ?? 'wav'));
  const out =
    spec === '-' ? new StdoutTarget(opts.stdout ?? process.stdout) : await FileTarget.open(spec, !!opts.replace);
  const encoder = await makeEncoder(codec, opts.format, opts.bitRate);
  return new EncodedSink(spec === '-' ? 'stdout' : 'file', out, opts.format, codec, encoder);
}

/**
 * Stdout as a sink sees it: the Output's one stdout writer (term/output.ts writeBytes: a failed write is a
 * StdoutWriteError), or a bare stream.
 */
export type StdoutBytes = NodeJS.WritableStream | { writeBytes(chunk: Uint8Array): Promise<void> };

/** Where encoded bytes go. */
export interface ByteTarget {
  write(b: Uint8Array): Promise<void>;
  /** rewrite bytes at an offset (files only; false when not possible) */
  patch(offset: number, b: Uint8Array): Promise<boolean>;
  end(): Promise<void>;
  /** drop what was written (files: the target stays as it was) */
  abort(): Promise<void>;
}

class StdoutTarget implements ByteTarget {
  constructor(private readonly out: StdoutBytes) {}
  write(b: Uint8Array): Promise<void> {
    if (b.length === 0) return Promise.resolve();
    const out = this.out;
    if ('writeBytes' in out) return out.writeBytes(b);
    return new Promise((resolve, reject) => {
      const ok = out.write(b, (err) => (err ? reject(err) : undefined));
      if (ok) resolve();
      else out.once('drain', () => resolve());
    });
  }
  async patch(): Promise<boolean> {
    return false;
  }
  async end(): Promise<void> {
    // stdout stays open for the process; nothing to close
  }
  async abort(): Promise<void> {
    // what reached stdout stays there
  }
}

class FileTarget implements ByteTarget {
  private constructor(private readonly file: AtomicFile) {}
  static async open(path: string, replace: boolean): Promise<FileTarget> {
    return new FileTarget(await AtomicFile.create(path, { replace }));
  }
  async write(b: Uint8Array): Promise<void> {
    if (b.length === 0) return;
    await this.file.write(b);
  }
  patch(offset: number, b: Uint8Array): Promise<boolean> {
    return this.file.writeAt(offset, b);
  }
  async end(): Promise<void> {
    await this.file.commit();
  }
  async abort(): Promise<void> {
    await this.file.discard();
  }
}

export async function openByteTarget(
  spec: '-' | (string & {}),
  stdout?: StdoutBytes,
  replace = false,
): Promise<ByteTarget> {
  return spec === '-' ? new StdoutTarget(stdout ?? process.stdout) : FileTarget.open(spec, replace);
}

interface Encoder {
  header?: Buffer;
  encode(pcm: Buffer): Buffer;
  flush(): Buffer;
  /** header rewritten with the final sizes */
  finalHeader?(dataBytes: number): Buffer;
}

async function makeEncoder(codec: Codec, format: PcmFormat, bitRate?: number): Promise<Encoder> {
  switch (codec) {
    case 'wav':
      return {
        header: wavHeader(format),
        encode: (p) => p,
        flush: () => Buffer.alloc(0),
        finalHeader: (n) => wavHeader(format, n),
      };
    case 'pcm':
      return { encode: (p) => p, flush: () => Buffer.alloc(0) };
    case 'mulaw':
    case 'alaw':
      return { encode: (p) => encodeSamples(p, codec), flush: () => Buffer.alloc(0) };
    case 'mp3': {
      const enc = await Mp3Encoder.create(format, bitRate);
      return { encode: (p) => enc.encode(p), flush: () => enc.flush() };
    }
  }
}

class EncodedSink implements AudioSink {
  private started = false;
  private dataBytes = 0;
  private carry = Buffer.alloc(0);
  constructor(
    readonly kind: 'file' | 'stdout',
    private readonly out: ByteTarget,
    readonly format: PcmFormat,
    readonly codec: Codec,
    private readonly enc: Encoder,
  ) {}

  async write(pcm: Buffer, handed?: () => void): Promise<void> {
    if (!this.started) {
      this.started = true;
      if (this.enc.header) await this.out.write(this.enc.header);
    }
    // whole samples only
    const all = this.carry.length ? Buffer.concat([this.carry, pcm]) : pcm;
    const usable = all.length - (all.length % 2);
    this.carry = Buffer.from(all.subarray(usable));
    const bytes = this.enc.encode(all.subarray(0, usable));
    this.dataBytes += bytes.length;
    await this.out.write(bytes);
    handed?.();
  }

  clear(): void {
    // a file keeps everything: nothing is "playing"
  }

  async end(): Promise<void> {
    if (!this.started && this.enc.header) await this.out.write(this.enc.header);
    const tail = this.enc.flush();
    this.dataBytes += tail.length;
    await this.out.write(tail);
    if (this.enc.finalHeader) await this.out.patch(0, this.enc.finalHeader(this.dataBytes));
    await this.out.end();
  }

  async abort(): Promise<void> {
    await this.out.abort();
  }
}

/**
 * Plays through `speaker`. The Speaker instance is created on the first write (so opening costs nothing
 * until there is sound); clear() closes it without draining and the next write opens a new one.
 */
class SpeakerSink implements AudioSink {
  readonly kind = 'speaker' as const;
  readonly codec = 'pcm' as const;
  private speaker: SpeakerLike | undefined;
  private closing: Promise<void>[] = [];
  private error: Error | undefined;

  constructor(
    private readonly Ctor: SpeakerCtor,
    readonly format: PcmFormat,
    private readonly device: string | undefined,
    /** PulseAudio's sink for ALSA's `pulse` device: read by libpulse when the device opens (the first write) */
    private readonly deviceEnv: Record<string, string>,
  ) {}

  private current(): SpeakerLike {
    if (!this.speaker) {
      const s = new this.Ctor({
        channels: this.format.channels,
        bitDepth: 16,
        sampleRate: this.format.sampleRate,
        signed: true,
        ...(this.device ? { device: this.device } : {}),
      });
      s.on('error', (err: Error) => {
        this.error ??= new Error(`cannot play audio: ${err.message}`);
      });
      this.speaker = s;
    }
    return this.speaker;
  }

  write(pcm: Buffer, handed?: () => void): Promise<void> {
    if (this.error) return Promise.reject(this.error);
    if (pcm.length === 0) return Promise.resolve();
    const opening = !this.speaker;
    const s = this.current();
    return new Promise((resolve) => {
      // the callback runs once speaker's native write returned: ALSA holds the samples
      const written = (err?: Error | null) => (err ? undefined : handed?.());
      const ok = opening ? withEnv(this.deviceEnv, () => s.write(pcm, written)) : s.write(pcm, written);
      if (ok) return resolve();
      const done = () => {
        s.removeListener('drain', done);
        s.removeListener('close', done);
        resolve();
      };
      s.once('drain', done);
      s.once('close', done);
    });
  }

  clear(): void {
    const s = this.speaker;
    if (!s) return;
    this.speaker = undefined;
    this.closing.push(
      new Promise<void>((resolve) => {
        s.once('close', () => resolve());
        setTimeout(resolve, 1000).unref();
        closeWhenIdle(s);
      }),
    );
  }

  async end(): Promise<void> {
    const s = this.speaker;
    this.speaker = undefined;
    if (s) {
      await new Promise<void>((resolve) => {
        s.once('close', () => resolve());
        s.end();
      });
    }
    await Promise.all(this.closing);
    if (this.error) throw this.error;
  }

  async abort(): Promise<void> {
    this.clear();
    await Promise.all(this.closing);
  }
}

/**
 * speaker's close() frees the ALSA handle at once, while its native write may still be running on the thread pool:
 * that write then aborts the whole process inside libasound (`snd_pcm_bytes_to_frames: Assertion 'pcm' failed`, a
 * barge-in's clear() during playback; 1 run in ~30 of the 20-turn duplex test). So the queued writes are held
 * (cork) and the handle is closed once the write in progress has returned (one chunk: a delta of the answer).
 */
function closeWhenIdle(s: SpeakerLike): void {
  s.cork();
  const attempt = () => {
    if (s._writableState?.writing) setTimeout(attempt, 2);
    else s.close(false);
  };
  attempt();
}

/** `fn` with `vars` in process.env (restored after): for a native library that reads its environment. */
function withEnv<T>(vars: Record<string, string>, fn: () => T): T {
  const keys = Object.keys(vars);
  if (!keys.length) return fn();
  const before = keys.map((k) => [k, process.env[k]] as const);
  Object.assign(process.env, vars);
  try {
    return fn();
  } finally {
    for (const [k, v] of before) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Can the speaker play on this device (the package there and the device opening, or the program installed)? */
export async function checkPlayback(
  format: PcmFormat,
  device: AudioDevice | undefined,
  env: NodeJS.ProcessEnv,
  platform?: NodeJS.Platform,
): Promise<void> {
  const route = playbackRoute(audioBackend(platform), device, format);
  if (route.via === 'command') {
    if (!onPath(route.run.command, env, platform))
      throw new AudioDeviceError(`cannot play audio: \`${route.run.command}\` is not installed; ${PLAYBACK_HINT}`);
  } else await openSpeaker({ ...format, device: route.device }, { ...env, ...route.env });
}

/** The speaker on the chosen device, through the backend's route: `speaker` (probed first) or a program. */
async function openSpeakerSink(opts: SinkOptions): Promise<AudioSink> {
  const env = opts.env ?? process.env;
  const device = opts.chosen ?? (await chooseDevice('output', opts.device, { env, platform: opts.platform }));
  const route = playbackRoute(audioBackend(opts.platform), device, opts.format);
  if (route.via === 'command') return CommandSink.open(route.run, opts.format, env, opts.platform);
  const Ctor = await openSpeaker({ ...opts.format, device: route.device }, { ...env, ...route.env });
  return new SpeakerSink(Ctor, opts.format, route.device, route.env);
}

/**
 * Plays by a program reading raw PCM on its stdin (sox on a named CoreAudio or WinMM device). clear() stops the
 * program, dropping what it holds; the next write starts another.
 */
class CommandSink implements AudioSink {
  readonly kind = 'speaker' as const;
  readonly codec = 'pcm' as const;
  private child: ChildProcessByStdio<Writable, null, Readable> | undefined;
  private exits: Promise<void>[] = [];
  private error: Error | undefined;

  private constructor(
    private readonly run: AudioCommand,
    readonly format: PcmFormat,
    private readonly env: NodeJS.ProcessEnv,
    private readonly spawner: typeof import('node:child_process').spawn,
  ) {}

  static async open(run: AudioCommand, format: PcmFormat, env: NodeJS.ProcessEnv, platform?: NodeJS.Platform) {
    if (!onPath(run.command, env, platform))
      throw new AudioDeviceError(`cannot play audio: \`${run.command}\` is not installed; ${PLAYBACK_HINT}`);
    const { spawn } = await import('node:child_process');
    return new CommandSink(run, format, env, spawn);
  }

  private current() {
    if (this.child) return this.child;
    const spawn = this.spawner; // called by its name: test/repo/child-env.test.ts checks every spawn( for its env
    const child = spawn(this.run.command, this.run.args, {
      env: childEnvironment({ ...this.env, ...this.run.env }),
      stdio: ['pipe', 'ignore', 'pipe'],
      windowsHide: true,
    });
    let said = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      if (said.length < 2000) said += d;
    });
    child.stdin.on('error', () => undefined); // reported by the exit below
    this.exits.push(
      new Promise<void>((resolve) => {
        child.on('error', (err) => {
          this.error ??= new AudioDeviceError(`cannot play audio: ${err.message}; ${PLAYBACK_HINT}`);
          resolve();
        });
        child.on('close', (code, signal) => {
          if (code && !signal && this.child === child) {
            const detail = said.trim().split('\n')[0]?.slice(0, 200);
            this.error ??= new AudioDeviceError(
              `cannot play audio: ${this.run.command} stopped (exit ${code}${detail ? `: ${detail}` : ''}); ` +
                PLAYBACK_HINT,
            );
          }
          resolve();
        });
      }),
    );
    this.child = child;
    return child;
  }

  write(pcm: Buffer): Promise<void> {
    if (this.error) return Promise.reject(this.error);
    if (pcm.length === 0) return Promise.resolve();
    const c = this.current();
    return new Promise((resolve) => {
      if (c.stdin.write(pcm)) resolve();
      else c.stdin.once('drain', resolve).once('close', resolve);
    });
  }

  clear(): void {
    const c = this.child;
    this.child = undefined;
    c?.kill();
  }

  async end(): Promise<void> {
    const c = this.child;
    c?.stdin.end();
    await Promise.all(this.exits);
    if (this.error) throw this.error;
  }

  async abort(): Promise<void> {
    this.clear();
    await Promise.all(this.exits);
  }
}
