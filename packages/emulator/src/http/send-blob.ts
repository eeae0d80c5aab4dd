// A stored blob streamed as a reply (file content, images, videos, skills), pacing and cutting it on request.
import { createReadStream, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { Backend } from '../state/backend.js';
import type { EmuResponse } from './router.js';

function waitDrain(raw: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      raw.off('drain', done);
      raw.off('close', done);
      resolve();
    };
    raw.on('drain', done);
    raw.on('close', done);
  });
}

/**
 * Stream a blob. `contentChunkDelayMs` paces it (64 KiB per step) and `contentDropAfterBytes` cuts the connection
 * once after that many bytes: both let tests interrupt a download half-way.
 */
export async function sendBlob(
  core: Backend,
  res: EmuResponse,
  path: string,
  headers: Record<string, string | number>,
): Promise<void> {
  const raw = res.raw;
  const size = statSync(path).size;
  raw.writeHead(200, { 'content-length': size, ...headers });
  const delay = core.settings.contentChunkDelayMs ?? 0;
  const dropAfter = core.settings.contentDropAfterBytes ?? 0;
  let sent = 0;
  const stream = createReadStream(path, { highWaterMark: 64 * 1024 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (raw.destroyed) return;
      if (dropAfter > 0 && sent + chunk.length > dropAfter) {
        core.settings.contentDropAfterBytes = 0;
        raw.write(chunk.subarray(0, Math.max(0, dropAfter - sent)));
        raw.socket?.destroy();
        return;
      }
      sent += chunk.length;
      if (!raw.write(chunk)) await waitDrain(raw);
      if (delay > 0) await core.sleep(delay);
    }
    raw.end();
  } finally {
    stream.destroy();
  }
}
