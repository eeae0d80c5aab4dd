// The input history of `svc chat -i`, kept across runs: one file per profile in the data folder
// (history/<profile>.jsonl, one JSON string per line so that a multi-line entry stays one entry), newest last, at most
// HISTORY_ENTRIES entries and HISTORY_BYTES bytes (the oldest go first). Private to the user (0600): a prompt may
// hold anything.
import { closeSync, openSync, readSync, fstatSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from '../core/paths.js';
import { writeOwnFile } from '../core/json-file.js';

export const HISTORY_ENTRIES = 1000;
export const HISTORY_BYTES = 256 * 1024;

export const historyFile = (env: NodeJS.ProcessEnv, profile: string): string =>
  join(dataDir(env), 'history', `${profile.replace(/[^\w.-]/g, '_')}.jsonl`);

/** The entries kept, newest first (as readline's `history` option takes them); none when the file is missing. */
export function loadHistory(file: string): string[] {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return [];
  }
  try {
    // only the last HISTORY_BYTES: a file grown by hand is not read whole
    const size = fstatSync(fd).size;
    const length = Math.min(size, HISTORY_BYTES);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    const entries: string[] = [];
    for (const line of buf.toString('utf8').split('\n')) {
      try {
        const v: unknown = JSON.parse(line);
        if (typeof v === 'string') entries.push(v);
      } catch {
        // a line cut by the byte cap, or not ours: skipped
      }
    }
    return entries.slice(-HISTORY_ENTRIES).reverse();
  } finally {
    closeSync(fd);
  }
}

/** Write the entries (newest first, as readline keeps them) within both caps. */
export function saveHistory(file: string, newestFirst: readonly string[]): void {
  const lines: string[] = [];
  let bytes = 0;
  for (const entry of newestFirst.slice(0, HISTORY_ENTRIES)) {
    const line = JSON.stringify(entry);
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > HISTORY_BYTES) break;
    lines.push(line);
  }
  writeOwnFile(
    file,
    lines
      .reverse()
      .map((l) => `${l}\n`)
      .join(''),
  );
}
