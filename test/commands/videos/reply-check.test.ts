// A video download is checked like every binary reply: an HTML page (or bytes that are not a video) behind the
// video URL is a protocol error (exit 1), the user's existing file stays as it was and no temp file is left.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

let server: Server;
let base: string;
/** what the video URL answers, by name */
const VIDEOS: Record<string, { type: string; body: Buffer }> = {
  'page.mp4': { type: 'text/html', body: Buffer.from('<html><body>Access denied</body></html>') },
  'junk.mp4': { type: 'video/mp4', body: Buffer.from('this is not a video at all, just text') },
  'real.mp4': {
    type: 'video/mp4',
    body: Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(64, 7)]),
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const m = /^\/v1\/videos\/(\w+)$/.exec(req.url ?? '');
    if (m) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          status: 'done',
          model: 'svc-video-1',
          video: { url: `${base}/files/${m[1]}.mp4`, duration: 1 },
        }),
      );
      return;
    }
    const v = VIDEOS[(req.url ?? '').replace('/files/', '')];
    if (!v) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': v.type, 'content-length': v.body.length });
    res.end(v.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

describe('svc videos wait: the downloaded reply must be a video', () => {
  for (const [name, message] of [
    ['page', /the server sent text\/html instead of a video: "<html><body>Access denied/],
    ['junk', /the server's reply is not a video/],
  ] as const) {
    it(`${name}: exit 1, ${message.source.slice(0, 40)}…, the existing file untouched, no temp file`, async () => {
      const dir = tempDir();
      const out = join(dir, 'clip.mp4');
      writeFileSync(out, 'my old clip');
      const r = await svcInProcess(['videos', 'wait', name, '-o', out, '--force', '--base-url', base], {
        key: 'svc-test-key-for-a-fake-server',
      });
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(readFileSync(out, 'utf8')).toBe('my old clip');
      expect(readdirSync(dir)).toEqual(['clip.mp4']);
    });
  }

  it('a real MP4 (ftyp box) is saved', async () => {
    const dir = tempDir();
    const out = join(dir, 'clip.mp4');
    const r = await svcInProcess(['videos', 'wait', 'real', '-o', out, '--base-url', base], {
      key: 'svc-test-key-for-a-fake-server',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(out)).toEqual(VIDEOS['real.mp4']!.body);
  });
});
