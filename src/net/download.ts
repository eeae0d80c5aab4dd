// Downloads: where the bytes go (a checked file, a directory and the resource's name, or stdout) and saving a
// stream through the one atomic writer (core/atomic-file.ts).
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ApiError, InterruptedError, NetworkError, ProtocolError, UsageError } from '../core/errors.js';
import { AtomicFile, FileWriteError, refuseExisting } from '../core/atomic-file.js';
import { BIDI_CONTROLS } from '../term/terminal-safe.js';

/**
 * Check a target path before anything is sent: its directory must exist, and an existing file is only replaced
 * with `force`. Throws a UsageError naming `flag`.
 */
export function checkTarget(target: string, opts: { force?: boolean; flag?: string } = {}): string {
  const flag = opts.flag ?? '--output';
  const abs = resolve(target);
  const dir = dirname(abs);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UsageError(`${flag}: ${target}: the directory ${dir} does not exist`);
  if (existsSync(abs)) {
    if (statSync(abs).isDirectory()) throw new UsageError(`${flag}: ${target} is a directory`);
    refuseExisting(target, flag, opts.force);
  }
  return abs;
}

/**
 * Where a download goes, from `-o`: stdout for `-`; a named file, checked now (before anything is sent); or a
 * directory (`-o DIR`, or the current one) where `named()` places the resource's own name once it is known.
 */
export function planDownload(
  output: string | undefined,
  opts: { force?: boolean } = {},
): { toStdout: boolean; target?: string; named(name: string): string } {
  const toStdout = output === '-';
  const isDir = (p: string) => p.endsWith('/') || (existsSync(p) && statSync(p).isDirectory());
  const target = !toStdout && output !== undefined && !isDir(output) ? checkTarget(output, opts) : undefined;
  return { toStdout, target, named: (name) => target ?? checkTarget(join(output ?? '.', name), opts) };
}

export interface SaveOptions {
  /** replace an existing file (otherwise committing refuses when one appeared meanwhile) */
  force?: boolean;
  signal?: AbortSignal;
  /** called with the bytes written so far */
  onProgress?: (bytes: number) => void;
  /** when known (Content-Length): fewer or more bytes is an error, and nothing is kept */
  expectedBytes?: number;
}

/** Stream `source` into `target` atomically; returns the number of bytes written. */
export async function saveStream(
  source: AsyncIterable<Uint8Array>,
  target: string,
  opts: SaveOptions = {},
): Promise<number> {
  const file = await AtomicFile.create(target, { replace: !!opts.force });
  // a source waiting for bytes that never come must still give way on Ctrl-C
  const onAbort = () => (source as { destroy?: (e?: Error) => void }).destroy?.(new InterruptedError());
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const pace = await memoryPacer();
    for await (const chunk of source) {
      if (opts.signal?.aborted) throw new InterruptedError();
      await file.write(chunk);
      pace(chunk.byteLength);
      opts.onProgress?.(file.bytes);
    }
    if (opts.signal?.aborted) throw new InterruptedError();
    if (opts.expectedBytes !== undefined && file.bytes !== opts.expectedBytes) {
      throw new NetworkError(`the download ended after ${file.bytes} of ${opts.expectedBytes} bytes`);
    }
    return await file.commit();
  } catch (err) {
    await file.discard();
    if (opts.signal?.aborted) throw new InterruptedError();
    throw err;
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

/** Save bytes already in memory, atomically. */
export async function saveBytes(data: Uint8Array, target: string, opts: SaveOptions = {}): Promise<number> {
  return saveStream(
    (async function* () {
      yield data;
    })(),
    target,
    opts,
  );
}

/**
 * Write a stream to stdout with back-pressure (for `-o -`), through the Output's one stdout writer: a write that
 * fails there (a full disk, /dev/full) is a StdoutWriteError naming stdout, never a lost connection.
 */
export async function streamToStdout(
  source: AsyncIterable<Uint8Array>,
  stdout: { writeBytes(chunk: Uint8Array): Promise<void> },
  opts: { signal?: AbortSignal; onProgress?: (bytes: number) => void } = {},
): Promise<number> {
  let bytes = 0;
  // the chunks are garbage once written, but V8 collects them late: without this, ~30 MB more at the peak
  const pace = await memoryPacer();
  for await (const chunk of source) {
    if (opts.signal?.aborted) throw new InterruptedError();
    bytes += chunk.byteLength;
    opts.onProgress?.(bytes);
    await stdout.writeBytes(chunk);
    pace(chunk.byteLength);
  }
  return bytes;
}

/** A name from a server (or a prompt) made safe as one path segment in a directory we choose. */
export function safeFileName(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  // controls (C0, DEL, C1) and bidirectional overrides (an "exe.txt" that reads "txt.exe") become visible `_`;
  // leading dots too, so a server cannot make a hidden file (".bashrc") or name a parent
  // eslint-disable-next-line no-control-regex
  const clean = base
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '_')
    .replace(BIDI_CONTROLS, '_')
    .trim()
    .replace(/^\.+/, (dots) => '_'.repeat(dots.length));
  return clean === '' || /^\.+$/.test(base.trim()) ? fallback : clean;
}

/**
 * An error met while saving a download: ours pass through, file system errors keep their message, the rest is a lost
 * connection.
 */
export function downloadError(err: unknown, requestId?: string, signal?: AbortSignal): Error {
  if (signal?.aborted) return new InterruptedError();
  if (
    err instanceof UsageError ||
    err instanceof InterruptedError ||
    err instanceof ApiError ||
    err instanceof NetworkError ||
    err instanceof ProtocolError ||
    err instanceof FileWriteError
  )
    return err;
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e.syscall === 'string' && e.path) return new FileWriteError(e.path, e.code, err);
  if (e?.code === 'UND_ERR_BODY_TIMEOUT')
    return new NetworkError('the download stalled (no data within --timeout)', requestId, err);
  return new NetworkError('the connection was lost in the middle of the download', requestId, err);
}

/**
 * Streaming a large file allocates a fresh buffer per chunk. V8 frees them only when it next collects, which it
 * does late (tens of MB of such external memory later), and malloc keeps what piled up: that alone would lift the
 * CLI's peak RSS by ~35 MB. `memoryPacer()` returns a function to call with each chunk's size: every `everyBytes`
 * it runs a young-generation collection (a fraction of a millisecond; the chunk objects die young), so the garbage
 * never grows past that. A no-op when the collector cannot be reached.
 */
export async function memoryPacer(everyBytes = 1024 * 1024): Promise<(bytes: number) => void> {
  let gc: ((opts?: { type?: 'minor' | 'major' }) => void) | undefined;
  try {
    const { setV8Flags } = await import('./v8-flags.js');
    const { runInNewContext } = await import('node:vm');
    await setV8Flags('--expose-gc');
    gc = runInNewContext('gc') as typeof gc;
  } catch {
    gc = undefined;
  }
  if (!gc) return () => {};
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since >= everyBytes) {
      since = 0;
      gc!({ type: 'minor' });
    }
  };
}
