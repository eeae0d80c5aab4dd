// Binary replies checked against what was asked: the content type (an HTML error page or a JSON body is not
// audio) and the first bytes (an "audio/mpeg" that is not MP3). A mismatch is a protocol error before anything
// is written, so no file ends up holding a web page under an .mp3 name.
import { ProtocolError } from '../core/errors.js';
import { streamError } from './http.js';

export interface BinaryKind {
  /** what was asked, for the message ("MP3 audio") */
  what: string;
  /** content types that may carry it */
  contentTypes: RegExp;
  /** true when the first bytes are those of the kind; absent for headerless data (raw PCM, G.711) */
  magic?: (head: Buffer) => boolean;
}

const ascii = (head: Buffer, at: number, s: string) =>
  head.length >= at + s.length && head.toString('latin1', at, at + s.length) === s;

export const MAGIC = {
  mp3: (h: Buffer) => ascii(h, 0, 'ID3') || (h.length >= 2 && h[0] === 0xff && (h[1]! & 0xe0) === 0xe0),
  wav: (h: Buffer) => ascii(h, 0, 'RIFF') && ascii(h, 8, 'WAVE'),
  png: (h: Buffer) => h.length >= 4 && h[0] === 0x89 && ascii(h, 1, 'PNG'),
  jpeg: (h: Buffer) => h.length >= 3 && h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff,
  webp: (h: Buffer) => ascii(h, 0, 'RIFF') && ascii(h, 8, 'WEBP'),
  gif: (h: Buffer) => ascii(h, 0, 'GIF8'),
  mp4: (h: Buffer) => ascii(h, 4, 'ftyp'),
};

/** Types that are never binary data: a server error page or an API error that came with status 200. */
const TEXTUAL = /^(text\/|application\/(json|xml|problem\+json|xhtml))/i;

/** Check the content type of a binary reply; `contentType` may be empty (then only the bytes decide). */
export function checkContentType(contentType: string, kind: BinaryKind, requestId?: string, body?: string): void {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === '' || type === 'application/octet-stream' || kind.contentTypes.test(type)) return;
  const shown = body !== undefined ? (body.trim() ? `: ${JSON.stringify(body.trim().slice(0, 200))}` : ' (empty)') : '';
  throw new ProtocolError(
    `the server sent ${type}${TEXTUAL.test(type) ? '' : ' data'} instead of ${kind.what}${shown}`,
    requestId,
  );
}

/** Check the first bytes of a binary reply (nothing to check for headerless kinds or an empty reply). */
export function checkMagic(head: Buffer, kind: BinaryKind, requestId?: string): void {
  if (!kind.magic || head.length === 0 || kind.magic(head)) return;
  const text = head.toString('utf8', 0, Math.min(head.length, 60));
  // eslint-disable-next-line no-control-regex
  const printable = /^[\x09\x0a\x0d\x20-\x7e]*$/.test(text) ? `: ${JSON.stringify(text)}` : '';
  throw new ProtocolError(
    `the server's reply is not ${kind.what} (its first bytes are not those of ${kind.what})${printable}`,
    requestId,
  );
}

/**
 * A binary reply body checked as it streams: the content type first (a wrong one is reported with what the body
 * said), then the first bytes; the chunks pass through unchanged.
 */
export async function* checkedBody(
  res: { headers: Record<string, string | string[] | undefined>; body: AsyncIterable<Uint8Array>; requestId?: string },
  kind: BinaryKind,
): AsyncGenerator<Uint8Array> {
  const ct = String(
    Array.isArray(res.headers['content-type']) ? res.headers['content-type'][0] : (res.headers['content-type'] ?? ''),
  );
  const source = res.body[Symbol.asyncIterator]();
  // a drop or a stall while reading is reported as such (not as an internal undici message)
  const iterator = {
    next: () => source.next().catch((err: unknown) => Promise.reject(streamError(err, res.requestId))),
  };
  const head: Buffer[] = [];
  let size = 0;
  let ended = false;
  // enough bytes for the magic (12) or, for a wrong type, for the message
  while (size < 12) {
    const r = await iterator.next();
    if (r.done) {
      ended = true;
      break;
    }
    head.push(Buffer.from(r.value));
    size += r.value.length;
  }
  const first = Buffer.concat(head);
  checkContentType(ct, kind, res.requestId, first.toString('utf8', 0, Math.min(first.length, 400)));
  if (ended && first.length === 0)
    throw new ProtocolError(`the server sent an empty reply instead of ${kind.what}`, res.requestId);
  checkMagic(first, kind, res.requestId);
  if (first.length) yield first;
  if (ended) return;
  for (;;) {
    const r = await iterator.next();
    if (r.done) return;
    yield r.value;
  }
}
