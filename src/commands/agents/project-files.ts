// The files a project file (svc-agents.json) names come from whoever wrote it, often a cloned repository: each stays
// inside the project folder. A name is checked when the project is read (relative, no way out by `..`), and what
// was opened is checked again, symbolic links followed (on Linux by the descriptor itself), before a byte is read or
// written; a file's content never appears in an error.
import { closeSync, existsSync, fstatSync, lstatSync, openSync, readSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { UsageError, fileErrorReason } from '../../core/errors.js';
import { utf8Text } from '../../core/input-file.js';

/** An agent file larger than this is refused (the API's own limits are far below it). */
export const MAX_AGENT_FILE_BYTES = 4 * 1024 * 1024;

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** `file` as a project file names it: a relative path that stays in `dir` (else a usage error naming `where`). */
export function checkProjectPath(dir: string, file: string, where: string): void {
  if (isAbsolute(file) || /^[A-Za-z]:|^\\\\/.test(file) || !inside(dir, resolve(dir, file)))
    throw new UsageError(
      `${where}: ${JSON.stringify(file)} is not allowed: a path relative to the project folder, inside it (${dir})`,
    );
}

/** The real path of what `fd` is: the descriptor's own link on Linux, else the name's, checked to be that file. */
function openedPath(fd: number, abs: string): string {
  if (process.platform === 'linux') {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      // no /proc: the name below
    }
  }
  const real = realpathSync(abs);
  const opened = fstatSync(fd);
  const named = lstatSync(real);
  if (opened.dev !== named.dev || opened.ino !== named.ino)
    throw new UsageError(`${abs}: the file changed while it was opened; run the command again`);
  return real;
}

function refuseOutside(dir: string, shown: string, real: string): never {
  throw new UsageError(
    `${shown} is not allowed: it leads outside the project folder ${dir} (to ${real}, through a symbolic link)`,
  );
}

/** The text of the project's file `rel` (undefined when there is none), refused when what opened is outside. */
export function readProjectText(dir: string, rel: string): string | undefined {
  const abs = resolve(dir, rel);
  let fd: number;
  try {
    fd = openSync(abs, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new UsageError(`${rel}: cannot read ${abs}: ${fileErrorReason(code, err)}`);
  }
  try {
    const real = openedPath(fd, abs);
    if (!inside(realpathSync(dir), real)) refuseOutside(dir, rel, real);
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UsageError(`${rel}: ${abs} is not a regular file`);
    if (stat.size > MAX_AGENT_FILE_BYTES)
      throw new UsageError(`${rel}: ${stat.size} bytes: an agent file is at most ${MAX_AGENT_FILE_BYTES} bytes`);
    const bytes = Buffer.alloc(stat.size);
    let got = 0;
    for (let n = 1; n > 0 && got < bytes.length; got += n) n = readSync(fd, bytes, got, bytes.length - got, got);
    return utf8Text(bytes.subarray(0, got), rel);
  } finally {
    closeSync(fd);
  }
}

/**
 * The absolute path to write the project's file `rel` to, once its folder (the nearest that exists) and the file
 * itself, when there is one, are inside the project folder with every link followed.
 */
export function projectWriteTarget(dir: string, rel: string): string {
  const abs = resolve(dir, rel);
  const root = realpathSync(dir);
  let probe = dirname(abs);
  while (!existsSync(probe) && dirname(probe) !== probe) probe = dirname(probe);
  const realFolder = realpathSync(probe);
  if (!inside(root, realFolder)) refuseOutside(dir, rel, realFolder);
  if (existsSync(abs) || isLink(abs)) {
    const real = existsSync(abs) ? realpathSync(abs) : readlinkSync(abs);
    if (!inside(root, resolve(dirname(abs), real))) refuseOutside(dir, rel, real);
  }
  return abs;
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Where JSON.parse stopped, as line and column: its message quotes the text, which may be anything (a key file). */
export function jsonErrorPlace(text: string, err: unknown): string {
  const m = /position (\d+)/.exec((err as Error).message);
  if (!m) return /end of (JSON|data)/i.test((err as Error).message) ? 'it ends too early' : 'it cannot be read as JSON';
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  return `at line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}
