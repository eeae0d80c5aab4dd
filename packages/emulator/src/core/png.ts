// A tiny PNG encoder (8-bit RGB, filter 0, zlib) and deterministic pictures derived from a seed string, so the
// emulator's images are real files whose content depends only on the request.
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Encode an 8-bit RGB image (`rgb.length === width * height * 3`). */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  if (rgb.length !== width * height * 3) throw new Error('encodePng: pixel buffer size does not match the dimensions');
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 3 + 1)] = 0; // filter: none
    Buffer.from(rgb.buffer, rgb.byteOffset + y * width * 3, width * 3).copy(raw, y * (width * 3 + 1) + 1);
  }
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Width and height for an aspect ratio `W:H` with the long side `long` pixels. */
export function dimensions(aspect: string | undefined, long = 256): { width: number; height: number } {
  const m = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(aspect ?? '');
  if (!m) return { width: long, height: long };
  const w = Number(m[1]);
  const h = Number(m[2]);
  return w >= h
    ? { width: long, height: Math.max(1, Math.round((long * h) / w)) }
    : { width: Math.max(1, Math.round((long * w) / h)), height: long };
}

/** A picture that depends only on `seed`: a two-colour gradient with a disc and stripes. */
export function pictureFromSeed(seed: string, width: number, height: number): Buffer {
  const h = createHash('sha256').update(seed).digest();
  const a = [h[0]!, h[1]!, h[2]!];
  const b = [h[3]!, h[4]!, h[5]!];
  const disc = [h[6]!, h[7]!, h[8]!];
  const cx = (h[9]! / 255) * width;
  const cy = (h[10]! / 255) * height;
  const r = ((h[11]! / 255) * 0.3 + 0.1) * Math.min(width, height);
  const stripe = 4 + (h[12]! % 12);
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = (x + y) / (width + height);
      const i = (y * width + x) * 3;
      const inDisc = (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
      const onStripe = Math.floor((x - y + height) / stripe) % 5 === 0;
      for (let c = 0; c < 3; c++) {
        let v = a[c]! * (1 - t) + b[c]! * t;
        if (inDisc) v = disc[c]!;
        else if (onStripe) v = v * 0.8;
        rgb[i + c] = Math.round(v);
      }
    }
  }
  return encodePng(width, height, rgb);
}
