// The folder an agent's paths are confined to (`svc mcp serve --root DIR`, default the working folder). A path is
// taken relative to it and opened once; what was opened is checked (its real path, device and inode), and the
// command is handed that very file or folder, never a name resolved again later: on Linux through
// /proc/self/fd/N, so a symbolic link flipped between the check and the use changes nothing. Reads are confined too
// (an agent uploading ~/.ssh/id_ed25519 is no better), and svc's own config, data and cache folders are refused
// whatever the root (the stored key lives there).
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdtempSync, openSync, readlinkSync } from 'node:fs';
import { readSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { writeOnlyOwnFilesIn } from '../core/atomic-file.js';
import { UsageError } from '../core/errors.js';
import { cacheDir, configDir, dataDir, homedir } from '../core/paths.js';

/** A file or folder held open for one tool call: the path the command is given, and how to speak of it. */
export interface Held {
  /** what the command opens: the checked file or folder itself (/proc/self/fd/N), or the checked path elsewhere */
  path: string;
  /** the command's text with `path` said as the agent knows it */
  shown(text: string, json: boolean): string;
  close(): void;
}

// Linux names an open descriptor's file and lets a path continue below an open folder's descriptor.
const FD_PATHS = process.platform === 'linux' && existsSync('/proc/self/fd');
const fdPath = (fd: number) => `/proc/self/fd/${fd}`;

const realOrResolved = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};

const within = (dir: string, p: string): boolean => {
  const rel = relative(dir, p);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

const code = (err: unknown): string | undefined => (err as NodeJS.ErrnoException)?.code;

/** The root svc mcp serve starts with: --root as given, else the working folder unless that is / or the home. */
export function rootFolder(given: string | undefined, cwd: string, env: NodeJS.ProcessEnv): string {
  if (given !== undefined) return given;
  const here = realOrResolved(cwd);
  const what =
    here === realOrResolved('/') ? 'the whole file system' : here === realOrResolved(homedir(env)) ? 'your home' : '';
  if (what)
    throw new UsageError(
      `--root: not given, and the working folder ${cwd} is ${what}: name the folder tools may read and write ` +
        '(--root DIR)',
    );
  return cwd;
}

/** A size in words: 1 MiB (1048576 bytes). */
const sized = (n: number) => (n % (1 << 20) === 0 ? `${n / (1 << 20)} MiB (${n} bytes)` : `${n} bytes`);

/**
 * At most `maxBytes` of the open file `fd` copied into a private folder (read from the descriptor, so a file that
 * grows meanwhile is still cut at the cap); more is refused naming the cap.
 */
function privateCopy(fd: number, given: string, what: string, name: string, maxBytes: number): Held {
  const buf = Buffer.alloc(maxBytes + 1);
  let n = 0;
  for (let got = -1; got !== 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, n);
  if (n > maxBytes)
    throw new UsageError(`${what}: ${given} (over ${sized(maxBytes)}) is not allowed: a file of at most that size`);
  const folder = mkdtempSync(join(tmpdir(), 'svc-mcp-read-'));
  const path = join(folder, name);
  writeFileSync(path, buf.subarray(0, n), { mode: 0o600 });
  return {
    path,
    shown: (t, json) => {
      const inJson = (p: string) => (json ? JSON.stringify(p).slice(1, -1) : p);
      return t.split(inJson(path)).join(inJson(given));
    },
    close: () => rmSync(folder, { recursive: true, force: true }),
  };
}

export class Root {
  readonly real: string;
  /** svc's own folders (config with the key, data with the call log, cache): never a tool's */
  private readonly own: string[];
  constructor(
    readonly dir: string,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new UsageError(`--root: ${dir} is not allowed: a folder that exists`);
    this.real = realpathSync(dir);
    this.own = [configDir(env), dataDir(env), cacheDir(env)].map(realOrResolved);
  }

  private refuse(given: string, what: string, mode: 'read' | 'write'): UsageError {
    return new UsageError(
      `${what}: ${given} is not allowed: a path under ${this.dir} (the --root of svc mcp serve) to ${mode}`,
    );
  }

  /** inside the root and outside svc's own folders */
  private allowed(real: string): boolean {
    return within(this.real, real) && !this.own.some((o) => within(o, real));
  }

  /** the real path of what `fd` is, refused unless allowed and the same file (device and inode) as that path */
  private check(fd: number, given: string, what: string, mode: 'read' | 'write'): string {
    let real: string;
    try {
      real = readlinkSync(fdPath(fd));
      const held = fstatSync(fd);
      const named = statSync(real);
      if (held.dev !== named.dev || held.ino !== named.ino) throw new Error('moved');
    } catch {
      throw this.refuse(given, what, mode);
    }
    if (!this.allowed(real)) throw this.refuse(given, what, mode);
    return real;
  }

  /** the path an agent gave, absolute, checked by name (platforms without /proc/self/fd; the root's tests) */
  confine(given: string, what: string, mode: 'read' | 'write'): string {
    const abs = resolve(this.real, given);
    let probe = abs;
    // a file not written yet: its nearest existing folder decides
    while (!existsSync(probe) && dirname(probe) !== probe) probe = dirname(probe);
    if (!this.allowed(realpathSync(probe))) throw this.refuse(given, what, mode);
    return abs;
  }

  /**
   * A regular file to read, opened once and checked; the command reads it under its own name in a private folder.
   * With `maxBytes` (a file the command reads into memory) it reads a private copy of at most that many bytes.
   */
  openRead(given: string, what: string, maxBytes?: number): Held {
    if (!FD_PATHS) {
      const abs = this.confine(given, what, 'read');
      if (!statSync(abs, { throwIfNoEntry: false })?.isFile())
        throw new UsageError(`${what}: ${given} is not allowed: a file under the root to read`);
      if (maxBytes === undefined) return { path: abs, shown: (t) => t, close: () => {} };
      const fd = openSync(abs, 'r');
      try {
        return privateCopy(fd, given, what, basename(abs), maxBytes);
      } finally {
        closeSync(fd);
      }
    }
    const abs = resolve(this.real, given);
    let fd: number;
    try {
      // a device or FIFO outside the root is never opened for a name that leads there (O_NONBLOCK: nor waited on)
      if (!this.allowed(realpathSync(abs))) throw this.refuse(given, what, 'read');
      fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`${what}: ${given}: no such file under the root (${code(err) ?? 'unreadable'})`);
    }
    try {
      const real = this.check(fd, given, what, 'read');
      if (!fstatSync(fd).isFile()) throw new UsageError(`${what}: ${given} is not allowed: a regular file to read`);
      if (maxBytes !== undefined) {
        const copy = privateCopy(fd, given, what, basename(real), maxBytes);
        closeSync(fd);
        return copy;
      }
      const folder = mkdtempSync(join(tmpdir(), 'svc-mcp-read-'));
      const link = join(folder, basename(real));
      symlinkSync(fdPath(fd), link);
      return {
        path: link,
        shown: (t, json) => {
          const inJson = (p: string) => (json ? JSON.stringify(p).slice(1, -1) : p);
          return t.split(inJson(link)).join(inJson(given));
        },
        close: () => {
          rmSync(folder, { recursive: true, force: true });
          closeSync(fd);
        },
      };
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /**
   * Where a command writes: a new file (never over one that exists) or, with `folder` (or a name that is a folder),
   * names of the command's choosing in a folder. The folder is opened once and checked, and the command writes
   * below that open folder: its temp file and the rename stay there whatever a link does meanwhile.
   */
  openWrite(given: string, what: string, folder: boolean): Held {
    if (given === '-' || given === '')
      throw new UsageError(`${what}: ${JSON.stringify(given)} is not allowed: a file path under the root`);
    if (!FD_PATHS) {
      const abs = this.confine(given, what, 'write');
      if (!folder && statSync(abs, { throwIfNoEntry: false })?.isFile())
        throw new UsageError(`${what}: ${given} exists; an MCP tool never overwrites a file`);
      const release = writeOnlyOwnFilesIn(folder ? abs : dirname(abs));
      return { path: folder ? `${abs}${sep}` : abs, shown: (t) => t, close: release };
    }
    const abs = resolve(this.real, given);
    const isFolder = folder || given.endsWith(sep) || given.endsWith('/');
    const dirFd = this.openFolder(isFolder ? abs : dirname(abs), given, what);
    const fds = [dirFd.fd];
    const close = () => fds.forEach((fd) => closeSync(fd));
    try {
      let dir = dirFd;
      let name = isFolder ? '' : basename(abs);
      const existing = name ? lstatSync(join(fdPath(dir.fd), name), { throwIfNoEntry: false }) : undefined;
      if (existing?.isDirectory() || existing?.isSymbolicLink()) {
        const inner = this.openFolder(join(fdPath(dir.fd), name), given, what);
        fds.push(inner.fd);
        dir = inner;
        name = '';
      } else if (existing) throw new UsageError(`${what}: ${given} exists; an MCP tool never overwrites a file`);
      const at = fdPath(dir.fd);
      // a link or a pipe planted at the name once checked is refused, never written through
      const release = writeOnlyOwnFilesIn(at);
      return {
        path: name ? join(at, name) : `${at}${sep}`,
        shown: (t, json) => {
          const real = json ? JSON.stringify(dir.real).slice(1, -1) : dir.real;
          // /proc/self/fd/17 and not /proc/self/fd/170
          return t.replace(new RegExp(`${at}(?![0-9])`, 'g'), () => real);
        },
        close: () => {
          release();
          close();
        },
      };
    } catch (err) {
      close();
      throw err;
    }
  }

  private openFolder(path: string, given: string, what: string): { fd: number; real: string } {
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY);
    } catch (err) {
      if (code(err) === 'ENOTDIR')
        throw new UsageError(`${what}: ${given} exists; an MCP tool never overwrites a file`);
      throw new UsageError(
        `${what}: ${given}: no such folder under the root to write in (${code(err) ?? 'unreadable'})`,
      );
    }
    try {
      return { fd, real: this.check(fd, given, what, 'write') };
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }
}
