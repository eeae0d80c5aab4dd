// Files and streams the user hands svc as input: read once here, so that every flag that takes a file refuses a
// missing, unreadable or directory path the same way (exit 2, the flag and the reason, nothing sent), and text is
// valid UTF-8 or refused (never silently turned into U+FFFD and sent).
import { readFileSync } from 'node:fs';
import { UsageError, fileErrorReason } from './errors.js';

/** The bytes of `path`, or a usage error naming `flag` ("--input: cannot read x.json: no such file …"). */
export function readInputBytes(flag: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`${flag}: cannot read ${path}: ${fileErrorReason(code, err)}`);
  }
}

/** `bytes` as UTF-8 text, or a usage error naming where they came from and the offset of the first bad byte. */
export function utf8Text(bytes: Uint8Array, source: string): string {
  const bad = firstInvalidByte(bytes);
  if (bad >= 0)
    throw new UsageError(
      `${source}: not valid UTF-8 text (byte ${bad} is not); convert it first, e.g. iconv -f LATIN1 -t UTF-8`,
    );
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** The text of `path` (valid UTF-8), or a usage error naming `flag`. */
export function readInputText(flag: string, path: string): string {
  return utf8Text(readInputBytes(flag, path), `${flag} ${path}`);
}

/** The offset of the first byte that is not part of a well-formed UTF-8 sequence (RFC 3629), or -1. */
export function firstInvalidByte(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (!need || i + need >= b.length) return i;
    // the second byte's range excludes overlong forms, surrogates and code points above U+10FFFF
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    if (b[i + 1]! < lo || b[i + 1]! > hi) return i;
    for (let k = 2; k <= need; k++) if (b[i + k]! < 0x80 || b[i + k]! > 0xbf) return i;
    i += need + 1;
  }
  return -1;
}
