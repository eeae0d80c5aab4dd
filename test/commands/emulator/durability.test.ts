// A 2xx means durable: kill -9 the emulator during a burst of uploads, restart it on the same state, and every
// upload it acknowledged is listed and downloads with the same bytes; no orphan blob is left behind.
import { randomBytes } from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSvc } from '../../helpers/subprocess.js';
import { tempDir } from '../../helpers/files.js';
import { fullOr } from '../../helpers/full.js';

const KEY = 'svc-emulator-local-key-0000000000000000';
const auth = { authorization: `Bearer ${KEY}` };
let running: ReturnType<typeof spawnSvc> | undefined;
afterEach(() => {
  running?.kill('SIGKILL');
});

async function serve(state: string): Promise<{ child: ReturnType<typeof spawnSvc>; url: string }> {
  const child = spawnSvc(['emulator', 'serve', '--port', '0', '--state-dir', state], { timeout: 240_000 });
  running = child;
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().split('\n')[0]!.trim()));
    child.once('exit', () => reject(new Error('serve exited early')));
  });
  return { child, url };
}

async function listAll(url: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let token = '';
  for (;;) {
    const r = await fetch(`${url}/v1/files?limit=100${token ? `&pagination_token=${encodeURIComponent(token)}` : ''}`, {
      headers: auth,
    });
    const page = (await r.json()) as { data: { id: string }[]; pagination_token: string };
    for (const f of page.data) ids.add(f.id);
    if (!page.data.length || page.pagination_token === token) return ids;
    token = page.pagination_token;
  }
}

describe('emulator durability', () => {
  // 500 acknowledged uploads before the kill in the full run, 150 in the others (test/helpers/full.ts): either way
  // the kill lands in a burst of 8 uploads in flight
  const ACKED = fullOr(500, 150);
  it('keeps every acknowledged upload across kill -9, with identical bytes, and sweeps orphan blobs ' +
    'at start', async () => {
    const state = tempDir();
    const first = await serve(state);
    const acked = new Map<string, Buffer>();
    let attempted = 0;
    let failed = 0;
    let refused = 0;
    let killed = false;
    const worker = async () => {
      while (!killed) {
        const bytes = randomBytes(2_000 + Math.floor(Math.random() * 120_000));
        const form = new FormData();
        form.append('file', new Blob([bytes]), `upload-${attempted}.bin`);
        attempted++;
        try {
          const r = await fetch(`${first.url}/v1/files`, { method: 'POST', headers: auth, body: form });
          const body = (await r.json()) as { id: string };
          if (r.status === 200) acked.set(body.id, bytes);
          else refused++;
        } catch {
          failed++;
          if (killed) return;
        }
        if (acked.size >= ACKED && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect((await first.child).signal).toBe('SIGKILL');
    expect(refused).toBe(0);
    expect(acked.size).toBeGreaterThanOrEqual(ACKED);

    // plus a blob whose record never committed and the temp file of an upload cut off mid-body
    writeFileSync(join(state, 'blobs', 'files', 'file_000000000000000000000000'), randomBytes(1000));
    writeFileSync(join(state, 'blobs', 'files', 'upload-cut-off'), randomBytes(1000));
    const second = await serve(state);
    const listed = await listAll(second.url);
    let identical = 0;
    for (const [id, bytes] of acked) {
      expect(listed.has(id), `acknowledged upload ${id} is listed`).toBe(true);
      const r = await fetch(`${second.url}/v1/files/${id}/content`, { headers: auth });
      expect(r.status).toBe(200);
      if (Buffer.from(await r.arrayBuffer()).equals(bytes)) identical++;
    }
    expect(identical).toBe(acked.size);
    // the blobs on disk are exactly the listed files: nothing orphaned, no temp files of cut-off uploads
    const blobs = readdirSync(join(state, 'blobs', 'files'));
    expect(blobs.length).toBe(listed.size);
    expect(readdirSync(state).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    console.log(
      `crash test: ${attempted} uploads attempted, ${acked.size} acknowledged before kill -9, ${failed} cut ` +
        `off, ${listed.size} listed after restart, ${identical} identical, ${blobs.length} blobs on disk`,
    );
    second.child.kill('SIGINT');
    expect(String((await second.child).stderr)).toMatch(/removed \d+ orphan blob/);
  }, 240_000);
});
