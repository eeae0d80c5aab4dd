// The one way svc writes a file the user named: bytes go to a temp file beside the target, which replaces the
// target only once complete (rename). A failure, Ctrl-C, SIGTERM or SIGHUP removes the temp file, so the user's
// existing file is never truncated and a partial file never stays behind. A failed write (disk full, file too
// large, permission) is an error that names the file; only bytes the OS took are counted.
import { existsSync, lstatSync, statSync, unlinkSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ExitCode, FileWriteError, UsageError } from './errors.js';
import { canRaise } from './signals.js';
import { FILE_TARGET_PARSERS } from './option-spec.js';

/** Temp files of this process not yet renamed or removed. */
const pending = new Set<string>();
let hooksInstalled = false;

function removePending(): void {
  for (const p of pending) {
    try {
      unlinkSync(p);
    } catch {
      // already gone
    }
  }
  pending.clear();
}

/**
 * Last resort, whatever ends the process: `exit` (the CLI's exit after Ctrl-C / SIGTERM, or a second Ctrl-C).
 * SIGHUP has no handler of the CLI's by default and would kill the process without `exit`: when ours is the only
 * listener, remove the temp files and die of the signal as before.
 */
function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', removePending);
  const onHup = () => {
    if (process.listenerCount('SIGHUP') > 1) return; // someone else handles it (and exits through `exit`)
    removePending();
    process.removeListener('SIGHUP', onHup);
    if (canRaise('SIGHUP')) process.kill(process.pid, 'SIGHUP');
    else process.exit(ExitCode.hangup); // Windows: the console closed, and there is no SIGHUP to die of
  };
  process.on('SIGHUP', onHup);
}

// The error class and what each errno means live in core/errors (the one classification of errors).
export { FileWriteError };

/** Wrap a file system error met while writing `path` (ours pass through). */
export function fileWriteError(err: unknown, path: string): Error {
  if (err instanceof FileWriteError || err instanceof UsageError) return err;
  return new FileWriteError(path, (err as NodeJS.ErrnoException)?.code, err);
}

export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.part`);
}

export interface AtomicFileOptions {
  /**
   * replace an existing target (default true: svc's own files, stores and state); a file the user named passes
   * the --force flag's value (cmdutil/flag-sets forceFlags): false refuses when a file is at the target on commit
   */
  replace?: boolean;
  /** how to name the target in messages (default: the path as given) */
  label?: string;
  /**
   * never open the target itself: a symbolic link, pipe or device there is refused, not written through (a folder
   * other programs may plant names in: batch's --output-dir, an MCP tool's output); also on for every target in a
   * folder given to writeOnlyOwnFilesIn
   */
  regularOnly?: boolean;
}

/** Folders (and what is below them) whose targets are written as with `regularOnly`. */
const regularOnlyFolders = new Set<string>();

/**
 * Every file written in `folder` from now until the returned function is called is a regular file of svc's own
 * making: a link or a pipe planted at a target's name is refused (svc mcp serve's checked output folders).
 */
export function writeOnlyOwnFilesIn(folder: string): () => void {
  const abs = resolve(folder);
  regularOnlyFolders.add(abs);
  return () => regularOnlyFolders.delete(abs);
}

const inside = (dir: string, p: string): boolean => {
  const rel = relative(dir, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
};

/** `regularOnly`: what is at `abs` (not followed) must be nothing or a regular file. */
function refusePlanted(abs: string, label: string): void {
  const st = lstatSync(abs, { throwIfNoEntry: false });
  if (!st || st.isFile()) return;
  const what = st.isSymbolicLink() ? 'a symbolic link' : st.isDirectory() ? 'a folder' : 'a pipe or device';
  throw new FileWriteError(label, undefined, new Error(`${what} is there; svc writes only a regular file of its own`));
}

/**
 * A file being written: `write` appends, `writeAt` rewrites earlier bytes (WAV sizes), `commit` puts it in place,
 * `discard` removes it. Exactly one of commit/discard should run; discard after commit does nothing.
 */
export class AtomicFile {
  /** bytes the OS confirmed (appended) */
  bytes = 0;
  private done = false;
  private failed: Error | undefined;

  private constructor(
    readonly target: string,
    /** the temp file; undefined when writing straight to a pipe or device given as the target */
    readonly tempPath: string | undefined,
    private readonly fh: FileHandle,
    private readonly opts: AtomicFileOptions,
  ) {}

  private get label(): string {
    return this.opts.label ?? this.target;
  }

  /** Create the temp file beside `target` (whose directory must exist). */
  static async create(target: string, opts: AtomicFileOptions = {}): Promise<AtomicFile> {
    const { open, chmod } = await import('node:fs/promises');
    installHooks();
    const abs = resolve(target);
    const label = opts.label ?? target;
    const regularOnly = opts.regularOnly || [...regularOnlyFolders].some((f) => inside(f, abs));
    // regularOnly: the target is only ever renamed or linked over (neither follows a link planted after this check)
    if (regularOnly) refusePlanted(abs, label);
    const existing = !regularOnly && existsSync(abs) ? statSync(abs) : undefined;
    if (existing?.isDirectory()) throw new FileWriteError(label, 'EISDIR');
    if (existing && !existing.isFile()) {
      // a pipe or device (/dev/null, a FIFO, /dev/fd/N of a process substitution): nothing to replace, write to it
      try {
        return new AtomicFile(abs, undefined, await open(abs, 'w'), { ...opts, label });
      } catch (err) {
        throw fileWriteError(err, label);
      }
    }
    const tmp = tempPathFor(abs);
    let fh: FileHandle;
    try {
      fh = await open(tmp, 'wx', 0o666);
    } catch (err) {
      throw fileWriteError(err, label);
    }
    pending.add(tmp);
    // a replaced file keeps its permissions
    try {
      if (existsSync(abs)) await chmod(tmp, (regularOnly ? lstatSync(abs) : statSync(abs)).mode & 0o7777);
    } catch {
      // keep the default mode
    }
    return new AtomicFile(abs, tmp, fh, { ...opts, label });
  }

  /** Append bytes; a short write continues, a failed one throws a FileWriteError (and the file is discarded later). */
  async write(b: Uint8Array): Promise<void> {
    await this.writeAll(b, this.bytes);
    this.bytes += b.length;
  }

  /** Rewrite bytes at `offset` (within what was written); false on a pipe or device, where that cannot be done. */
  async writeAt(offset: number, b: Uint8Array): Promise<boolean> {
    if (!this.tempPath) return false;
    await this.writeAll(b, offset);
    return true;
  }

  private async writeAll(b: Uint8Array, at: number): Promise<void> {
    const position = this.tempPath ? at : null;
    if (this.failed) throw this.failed;
    if (this.done) throw new Error(`internal: ${this.label} was already finished`);
    let off = 0;
    try {
      while (off < b.length) {
        const { bytesWritten } = await this.fh.write(b, off, b.length - off, position === null ? null : position + off);
        if (bytesWritten <= 0) throw Object.assign(new Error('no bytes written'), { code: 'EIO' });
        off += bytesWritten;
      }
    } catch (err) {
      this.failed = fileWriteError(err, this.label);
      throw this.failed;
    }
  }

  /** Close and move into place. Throws (and removes the temp file) when any of it fails. */
  async commit(): Promise<number> {
    if (this.failed) {
      await this.discard();
      throw this.failed;
    }
    const { rename, link, unlink } = await import('node:fs/promises');
    try {
      await this.fh.close();
    } catch (err) {
      this.failed = fileWriteError(err, this.label);
      await this.discard();
      throw this.failed;
    }
    if (!this.tempPath) {
      this.done = true;
      return this.bytes;
    }
    const tempPath = this.tempPath;
    try {
      if (this.opts.replace !== false) await rename(tempPath, this.target);
      else {
        // no-clobber: link fails when a file appeared at the target meanwhile
        try {
          await link(tempPath, this.target);
          await unlink(tempPath).catch(() => {});
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'EEXIST') throw fileExists(this.label);
          // a file system without hard links: check, then rename
          if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw err;
          if (existsSync(this.target)) throw fileExists(this.label);
          await rename(tempPath, this.target);
        }
      }
    } catch (err) {
      await unlink(tempPath).catch(() => {});
      pending.delete(tempPath);
      this.done = true;
      throw fileWriteError(err, this.label);
    }
    pending.delete(tempPath);
    this.done = true;
    return this.bytes;
  }

  /** Close and remove the temp file; the target is untouched. Safe to call more than once. */
  async discard(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.fh.close().catch(() => {});
    if (!this.tempPath) return;
    try {
      unlinkSync(this.tempPath);
    } catch {
      // already gone
    }
    pending.delete(this.tempPath);
  }
}

/** Write `data` to `target` atomically (replacing it unless `replace: false`). */
export async function writeFileAtomic(
  target: string,
  data: Uint8Array | string,
  opts: AtomicFileOptions = {},
): Promise<number> {
  const f = await AtomicFile.create(target, opts);
  try {
    await f.write(typeof data === 'string' ? Buffer.from(data) : data);
  } catch (err) {
    await f.discard();
    throw err;
  }
  return f.commit();
}

/**
 * The rule for every file the user names: an existing one is never replaced without --force (--clobber). `flag`
 * is the flag that named it, when checked before anything is sent; none at commit time (a file that appeared since).
 */
function fileExists(target: string, flag?: string): UsageError {
  return new UsageError(`${flag ? `${flag}: ` : ''}${target} already exists; --force (or --clobber) replaces it`);
}

/**
 * Throws fileExists when a regular file is at `target` (or a link to none: committing could not link over it) and
 * `force` is not set. Anything else passes: no file, a pipe or device (written as before), a folder (the parser's
 * or the writer's own error).
 */
export function refuseExisting(target: string, flag: string, force: boolean | undefined): void {
  if (force || target === '-') return;
  const abs = resolve(target);
  let st: ReturnType<typeof statSync> | undefined;
  try {
    st = statSync(abs);
  } catch {
    if (!lstatExists(abs)) return;
  }
  if (!st || st.isFile()) throw fileExists(target, flag);
}

function lstatExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A flag naming a file svc will write (`-o FILE`, `--timestamps FILE`, `--transcripts DIR`…), checked when the
 * command line is parsed — before any paid work — so that an hour of audio is not spent into a path that cannot be
 * written: the folder must exist, and the target must not be a folder (or, with `dir`, must be one or not exist).
 * `-` (stdout) and the words in `pass` (speaker) go through. An existing file is refused unless --force, checked
 * once all flags are parsed (cmdutil/command-options refuseExistingOutputs); the command's writer passes
 * `replace: force` so that one created meanwhile is not replaced either.
 */
export function outputPath(opts: { dir?: boolean; pass?: readonly string[] } = {}) {
  const parse = (raw: string, flag: string): string => {
    if (raw === '-' || opts.pass?.includes(raw)) return raw;
    const abs = resolve(raw);
    const parent = dirname(abs);
    if (!existsSync(parent) || !statSync(parent).isDirectory())
      throw new UsageError(`${flag}: ${raw}: the folder ${parent} does not exist`);
    if (existsSync(abs) && statSync(abs).isDirectory() !== !!opts.dir)
      throw new UsageError(`${flag}: ${raw} ${opts.dir ? 'is not a folder' : 'is a folder'}`);
    return raw;
  };
  if (!opts.dir) FILE_TARGET_PARSERS.set(parse, opts.pass ?? []);
  return parse;
}
