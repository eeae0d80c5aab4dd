// svc's own small JSON files (conversations, the last response, the price cache, completion caches): written to a
// temp file beside the target and renamed over it, so a reader never sees half a file. A failed write (disk full,
// a file where a folder should be) removes the temp file and is an error that names the target. Not
// core/atomic-file.ts: that one streams into files the user named, and loads node:crypto for its temp names.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { FileWriteError } from './errors.js';
import { makeDirs } from 'svc-formats/make-dirs';

export function writeJsonFile(path: string, data: unknown, opts: { pretty?: boolean } = {}): void {
  writeOwnFile(path, opts.pretty ? JSON.stringify(data, null, 2) : JSON.stringify(data));
}

/** The same for text (the REPL's history): private to the user (0600, its folder 0700). */
export function writeOwnFile(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    makeDirs(dirname(path), 0o700);
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, path);
  } catch (err) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // no folder to have left it in
    }
    throw new FileWriteError(path, (err as NodeJS.ErrnoException).code, err);
  }
}
