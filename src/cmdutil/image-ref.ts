// An image given on the command line: an http(s) or data URL is sent as is, a local file becomes a data URL.
// Its type is taken from its first bytes (the extension only when they say nothing), before anything is sent.
import { readFileSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { fail } from '../core/validate.js';

export function sniffImage(data: Uint8Array, name = ''): string | undefined {
  const b = Buffer.from(data.buffer, data.byteOffset, Math.min(12, data.length));
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'image/webp';
  const ext = name.toLowerCase().split('.').pop();
  return ext === 'png'
    ? 'image/png'
    : ext === 'jpg' || ext === 'jpeg'
      ? 'image/jpeg'
      : ext === 'webp'
        ? 'image/webp'
        : ext === 'gif'
          ? 'image/gif'
          : undefined;
}

/** The URL sent for an image flag's value; a missing or non-image file is a usage error naming the flag. */
export function imageRef(value: string, flag = '--image'): string {
  if (/^https?:\/\//i.test(value) || /^data:image\//i.test(value)) return value;
  let data: Buffer;
  try {
    data = readFileSync(value);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new UsageError(`${flag}: ${value}: no such file (give a readable image file or an http(s) URL)`);
    return fail(flag, value, `a readable image file or an http(s) URL (${code ?? (err as Error).message})`);
  }
  if (data.length === 0) throw new UsageError(`${flag}: ${value} is empty (give an image file or an http(s) URL)`);
  const mime = sniffImage(data, value);
  if (!mime) throw new UsageError(`${flag}: ${value} is not a PNG, JPEG, GIF or WebP image`);
  return `data:${mime};base64,${data.toString('base64')}`;
}
