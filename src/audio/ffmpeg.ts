// Containers svc does not decode itself (FLAC, Ogg, MP4/M4A, AAC, WebM, AIFF, …) go through `ffmpeg` when it is on
// PATH: a subprocess that reads the file (or the bytes as they arrive on a pipe) and writes PCM s16le at the rate
// and channel count asked, streamed. Without ffmpeg the caller refuses the input with FFMPEG_HINT (exit 2).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { onPath } from './devices.js';
import { childEnvironment } from '../core/environment.js';
import type { PcmFormat } from 'svc-formats/audio-format';

export const FFMPEG_HINT =
  'svc decodes WAV and MP3 itself; for other formats install ffmpeg (apt-get install ffmpeg, brew install ' +
  'ffmpeg) or convert the file first (ffmpeg -i IN OUT.wav)';

export function ffmpegAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  return onPath('ffmpeg', env);
}

export interface FfmpegDecoder {
  /** PCM s16le in the asked format, as ffmpeg produces it; throws at the end when ffmpeg failed */
  pcm: AsyncIterable<Buffer>;
  /** stop ffmpeg (and stop feeding it) */
  kill(): void;
}

/** ffmpeg's arguments that decode a file (or stdin) to raw 16-bit PCM of `format` on stdout. */
function decodeArgs(path: string | undefined, format: PcmFormat): string[] {
  const rate = String(format.sampleRate);
  const input = path === undefined ? ['-i', 'pipe:0'] : ['-nostdin', '-i', path];
  const output = ['-vn', '-f', 's16le', '-acodec', 'pcm_s16le', '-ac', String(format.channels), '-ar', rate, 'pipe:1'];
  return ['-hide_banner', '-loglevel', 'error', ...input, ...output];
}

/** Decode `input` (a file path, or bytes arriving) to PCM with ffmpeg. `label` names the input in errors. */
export function ffmpegDecode(
  input: { path: string } | { bytes: AsyncIterable<Buffer> },
  format: PcmFormat,
  label: string,
  env: NodeJS.ProcessEnv = process.env,
): FfmpegDecoder {
  const fromPath = 'path' in input;
  const args = decodeArgs(fromPath ? input.path : undefined, format);
  // without svc's secrets: ffmpeg parses files from anywhere (core/environment.ts)
  const child = spawn('ffmpeg', args, {
    env: childEnvironment(env),
    stdio: [fromPath ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => {
    if (stderr.length < 8000) stderr += d;
  });
  // read from the start: node discards a child's unread stdout when the child exits (ffmpeg may finish first)
  const out = child.stdout!.pipe(new PassThrough({ highWaterMark: 256 * 1024 }));
  let killed = false;
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.on('error', (error) => resolve({ code: null, error }));
    child.on('close', (code) => resolve({ code }));
  });
  if (!fromPath) {
    const stdin = child.stdin!;
    stdin.on('error', () => {
      // ffmpeg stopped reading (it failed, or has what it needs): its exit status tells
    });
    void (async () => {
      try {
        for await (const chunk of input.bytes) {
          if (killed || stdin.destroyed) break;
          if (!stdin.write(chunk)) await Promise.race([once(stdin, 'drain'), once(stdin, 'close')]);
        }
      } catch {
        // the input failed: ffmpeg sees the end of its input
      } finally {
        stdin.end();
      }
    })();
  }
  async function* pcm(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of out) yield chunk as Buffer;
    } finally {
      if (!out.readableEnded) child.kill();
    }
    const r = await exited;
    if (killed) return;
    if (r.error) throw new Error(`cannot run ffmpeg for ${label}: ${r.error.message}`);
    if (r.code !== 0) {
      const last = stderr.trim().split('\n').filter(Boolean).pop() ?? `exit status ${r.code}`;
      throw new Error(`ffmpeg could not decode ${label}: ${last.slice(0, 300)}`);
    }
  }
  return {
    pcm: pcm(),
    kill() {
      killed = true;
      child.kill();
    },
  };
}
