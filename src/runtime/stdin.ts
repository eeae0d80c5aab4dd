// What stdin is for a run (docs/scripting.md, "stdin"): --no-stdin makes it empty, as `< /dev/null` does; and a
// prompt given as words is joined with stdin only when stdin is not the input of the shell that started svc (a
// `while read` loop's, a script's own): that input belongs to the loop, whose next lines svc would swallow.
import { fstatSync, readFileSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { Streams } from '../term/output.js';

/** An empty, ended stdin, marked as the null device's (readStdin knows it is empty without reading it). */
export function emptyStdin(): Streams['stdin'] {
  return Object.assign(
    new Readable({
      read() {
        this.push(null);
      },
    }),
    { isTTY: false, [Symbol.for('svc.nullDevice')]: true },
  );
}

/**
 * Why stdin, not a terminal, is not this prompt's (undefined: it is): a file already partly read (a `while read …;
 * done < FILE` loop), or, on Linux, a pipe the process that started svc has as its stdin too (`… | while read`;
 * /proc/PPID/fd/0). Where that cannot be known (other systems, a parent of another user) stdin is the prompt's.
 */
export function stdinBelongsElsewhere(platform: NodeJS.Platform = process.platform): string | undefined {
  try {
    const mine = fstatSync(0);
    if (mine.isFile()) {
      const pos = platform === 'linux' ? /^pos:\s+(\d+)/m.exec(readFileSync('/proc/self/fdinfo/0', 'utf8')) : null;
      return pos && Number(pos[1]) > 0 ? 'it is a file a loop is reading (partly read already)' : undefined;
    }
    if (platform !== 'linux' || (!mine.isFIFO() && !mine.isSocket())) return undefined;
    const theirs = statSync(`/proc/${process.ppid}/fd/0`);
    return theirs.dev === mine.dev && theirs.ino === mine.ino
      ? 'the shell that started svc reads the same pipe (a while-read loop)'
      : undefined;
  } catch {
    return undefined;
  }
}
