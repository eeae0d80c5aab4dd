// multipart/form-data bodies streamed from disk. The body is an async generator over the parts (file contents
// read in chunks, never whole), its Content-Length is computed up front from the part headers and file sizes,
// and `body()` makes a fresh generator each time, so the HTTP client can replay it on a retry.
import { randomBytes } from 'node:crypto';

export type MultipartPart =
  | { name: string; value: string }
  | { name: string; filename: string; contentType?: string; path: string; size: number }
  | { name: string; filename: string; contentType?: string; data: Uint8Array };

export interface MultipartBody {
  boundary: string;
  /** the Content-Type header value, boundary included */
  contentType: string;
  /** exact byte length of the body */
  contentLength: number;
  /** a fresh stream of the body (replayable) */
  body: () => AsyncGenerator<Uint8Array>;
}

export interface MultipartOptions {
  boundary?: string;
  /** called as body bytes are handed to the socket (sent, total); restarts from 0 on a retry */
  onProgress?: (sent: number, total: number) => void;
  /** read size for file parts */
  chunkSize?: number;
}

/** Quote a header parameter the way browsers do (WHATWG): `"` and line breaks percent-encoded. */
export function quoteParam(v: string): string {
  return `"${v.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

function partHeader(boundary: string, part: MultipartPart): Buffer {
  let h = `--${boundary}\r\nContent-Disposition: form-data; name=${quoteParam(part.name)}`;
  if ('filename' in part)
    h += `; filename=${quoteParam(part.filename)}\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}`;
  return Buffer.from(`${h}\r\n\r\n`, 'utf8');
}

function partSize(part: MultipartPart): number {
  if ('value' in part) return Buffer.byteLength(part.value, 'utf8');
  if ('data' in part) return part.data.byteLength;
  return part.size;
}

export function buildMultipart(parts: MultipartPart[], opts: MultipartOptions = {}): MultipartBody {
  const boundary = opts.boundary ?? `----svc-${randomBytes(12).toString('hex')}`;
  const headers = parts.map((p) => partHeader(boundary, p));
  const crlf = Buffer.from('\r\n');
  const closing = Buffer.from(`--${boundary}--\r\n`);
  let contentLength = closing.length;
  parts.forEach((p, i) => {
    contentLength += headers[i]!.length + partSize(p) + crlf.length;
  });
  const chunkSize = opts.chunkSize ?? 256 * 1024;

  async function* body(): AsyncGenerator<Uint8Array> {
    let sent = 0;
    const emit = (b: Uint8Array) => {
      sent += b.byteLength;
      opts.onProgress?.(sent, contentLength);
      return b;
    };
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      yield emit(headers[i]!);
      if ('value' in part) yield emit(Buffer.from(part.value, 'utf8'));
      else if ('data' in part) yield emit(part.data);
      else {
        const { createReadStream } = await import('node:fs');
        const { memoryPacer } = await import('./download.js');
        const pace = await memoryPacer();
        let read = 0;
        for await (const chunk of createReadStream(part.path, { highWaterMark: chunkSize }) as AsyncIterable<Buffer>) {
          read += chunk.length;
          if (read > part.size) throw new Error(`${part.path} grew while it was being uploaded`);
          pace(chunk.length);
          yield emit(chunk);
        }
        if (read !== part.size)
          throw new Error(`${part.path} changed size while it was being uploaded (${part.size} → ${read} bytes)`);
      }
      yield emit(crlf);
    }
    yield emit(closing);
  }

  return { boundary, contentType: `multipart/form-data; boundary=${boundary}`, contentLength, body };
}
