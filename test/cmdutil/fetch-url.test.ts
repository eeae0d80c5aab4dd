// Issue 36 item 4: the URLs of -a and -f are read up to fetch.max_bytes (10 MiB by default): a Content-Length over it
// stops the fetch before the body, a body without one (or one that never ends) is cut at the cap; exit 2 naming the
// flag, the URL and the cap, and nothing reaches the API. A real loopback server sends the pages.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { itWithEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/files.js';
import { svcInProcess } from '../helpers/in-process.js';

const withEmu = itWithEmulator();
const MiB = 1024 * 1024;

/** bytes each route wrote before its client went away (or it finished) */
const written = new Map<string, number>();

/** Writes `total` bytes of text (Infinity: without end) in 64 KiB chunks, with back-pressure. */
function pour(res: ServerResponse, route: string, total: number) {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  let sent = 0;
  const more = () => {
    while (sent < total) {
      const n = Math.min(chunk.length, total - sent);
      sent += n;
      written.set(route, sent);
      if (!res.write(chunk.subarray(0, n))) return void res.once('drain', more);
    }
    res.end();
  };
  res.on('close', () => written.set(route, sent));
  more();
}

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const route = req.url ?? '';
    if (route === '/endless')
      pour(res.writeHead(200, { 'content-type': 'text/plain' }), route, Number.POSITIVE_INFINITY);
    else if (route === '/declared')
      pour(res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(96 * MiB) }), route, 96 * MiB);
    else if (route === '/two-mib') pour(res.writeHead(200, { 'content-type': 'text/plain' }), route, 2 * MiB);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const sentToApi = (emu: TestEmulator) => emu.requests().filter((r) => r.path.startsWith('/v1/'));

describe.concurrent('URLs of -a and -f are capped', () => {
  withEmu(
    'an endless body is cut at the default 10 MiB: exit 2 naming the cap, nothing sent',
    async ({ emu, expect }) => {
      const r = await svcInProcess(['chat', '-a', `${base}/endless`, 'summarize'], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(
        `-a ${base}/endless: it is larger, over the 10 MiB svc fetches (nothing was sent to the API); raise it with ` +
          '`svc config set fetch.max_bytes BYTES`',
      );
      expect(sentToApi(emu)).toEqual([]);
      // the server stopped being read near the cap (socket buffers aside), not after 96 MiB or never
      await expect.poll(() => written.get('/endless') ?? 0).toBeGreaterThan(10 * MiB);
      expect(written.get('/endless')).toBeLessThan(20 * MiB);
    },
  );

  withEmu('a Content-Length over the cap stops the fetch before the body (-f)', async ({ emu }) => {
    const r = await svcInProcess(['chat', '-f', `${base}/declared`, 'summarize'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`-f ${base}/declared: the server says 96 MiB, over the 10 MiB svc fetches`);
    expect(sentToApi(emu)).toEqual([]);
  });

  withEmu('fetch.max_bytes lowers or raises the cap; a bad value is exit 2 naming the range', async ({ emu }) => {
    const configDir = tempDir();
    const set = await svcInProcess(['config', 'set', 'fetch.max_bytes', String(MiB)], { configDir });
    expect(set.exitCode, set.stderr).toBe(0);
    const cut = await svcInProcess(['chat', '-a', `${base}/two-mib`, 'summarize'], { emu, configDir });
    expect(cut.exitCode).toBe(2);
    expect(cut.stderr).toContain(`-a ${base}/two-mib: it is larger, over the 1 MiB svc fetches`);
    expect(sentToApi(emu)).toEqual([]);
    await svcInProcess(['config', 'set', 'fetch.max_bytes', String(3 * MiB)], { configDir });
    const ok = await svcInProcess(['chat', '-a', `${base}/two-mib`, 'summarize'], { emu, configDir });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(sentToApi(emu).map((q) => `${q.method} ${q.path}`)).toEqual(['POST /v1/chat/completions']);
    const bad = await svcInProcess(['config', 'set', 'fetch.max_bytes', '0'], { configDir });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/fetch\.max_bytes: 0 is not allowed: a whole number from 1 to 1073741824/);
    const shown = await svcInProcess(['config', 'get', 'fetch.max_bytes', '--json'], { configDir: tempDir() });
    expect(JSON.parse(shown.stdout)).toMatchObject({ value: String(10 * MiB), source: 'default' });
  });
});
