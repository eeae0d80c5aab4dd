// mkdir -p for svc and the emulator. Not fs.mkdirSync's `recursive`, which on Node 20 loops for ever where mkdir
// says ENOENT under a folder that exists (/proc, /sys: SVC_CONFIG_DIR=/proc/x), busy in one synchronous call, so
// that not even SIGTERM ends it: here a second ENOENT is the error it is.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Makes `dir` and the folders above it that are missing, each with `mode` (as mkdir -p -m). */
export function makeDirs(dir: string, mode?: number): void {
  if (tryMkdir(dir, mode) !== 'ENOENT') return;
  const parent = dirname(dir);
  if (parent === dir)
    throw Object.assign(new Error(`ENOENT: no such file or directory, mkdir '${dir}'`), { code: 'ENOENT' });
  makeDirs(parent, mode);
  if (tryMkdir(dir, mode) === 'ENOENT')
    throw Object.assign(new Error(`ENOENT: cannot make a folder here, mkdir '${dir}'`), { code: 'ENOENT', path: dir });
}

/** 'made', 'exists' (a folder already), 'ENOENT' (a folder above is missing); any other error is thrown */
function tryMkdir(dir: string, mode?: number): 'made' | 'exists' | 'ENOENT' {
  try {
    mkdirSync(dir, mode === undefined ? undefined : { mode });
    return 'made';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'ENOENT';
    if (code === 'EEXIST' && statSync(dir).isDirectory()) return 'exists';
    throw err;
  }
}
