// The emulator's files, skills, images and videos routes, spoken to directly over HTTP.
import { inflateSync, crc32 as zcrc32 } from 'node:zlib';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { fullOr } from '../../helpers/full.js';
import { crc32, encodePng, pictureFromSeed } from 'svc-emulator/png';
import { parseForm } from 'svc-emulator/formdata';
import { buildMultipart } from '../../../src/net/multipart.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ settings: { videoDelayMs: 300 } });
});
afterAll(() => emu.close());

type Part = { name: string; filename?: string; value: string | Buffer; type?: string };
function form(parts: Part[]): { body: Buffer<ArrayBuffer>; type: string } {
  const b = 'BoUnDaRy123';
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let h = `--${b}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) h += `; filename="${p.filename}"\r\nContent-Type: ${p.type ?? 'text/plain'}`;
    chunks.push(Buffer.from(`${h}\r\n\r\n`), Buffer.from(p.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${b}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${b}` };
}

async function call(method: string, path: string, opts: { json?: unknown; form?: Part[]; key?: string | null } = {}) {
  const headers: Record<string, string> = {};
  if (opts.key !== null) headers.authorization = `Bearer ${opts.key ?? emu.key}`;
  let body: Buffer<ArrayBuffer> | string | undefined;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    const f = form(opts.form);
    headers['content-type'] = f.type;
    body = f.body;
  }
  const res = await fetch(emu.url + path, { method, headers, body });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

const upload = async (name = 'a.txt', content = 'hello', extra: Part[] = []) => {
  const r = await call('POST', '/v1/files', { form: [...extra, { name: 'file', filename: name, value: content }] });
  expect(r.status, r.text).toBe(200);
  return r.json as { id: string; bytes: number; expires_at: number | null; created_at: number };
};

describe('POST /v1/files form rules', () => {
  it('stores the part and answers a File', async () => {
    const f = await upload('x.txt', 'abc', [
      { name: 'expires_after', value: '7200' },
      { name: 'purpose', value: 'batch' },
    ]);
    expect(f).toMatchObject({ object: 'file', bytes: 3, filename: 'x.txt', purpose: 'batch' });
    expect(f.expires_at! - f.created_at).toBe(7200);
  });

  const bad: [string, Part[], RegExp][] = [
    [
      'expires_after after the file part',
      [
        { name: 'file', filename: 'a.txt', value: 'x' },
        { name: 'expires_after', value: '7200' },
      ],
      /expires_after` field must appear before/,
    ],
    [
      'a part after the file',
      [
        { name: 'file', filename: 'a.txt', value: 'x' },
        { name: 'purpose', value: 'p' },
      ],
      /must be the last part/,
    ],
    ['no file part', [{ name: 'purpose', value: 'p' }], /Missing the `file` part/],
    ['a file part without a filename', [{ name: 'file', value: 'x' }], /no filename/],
    ['an empty filename', [{ name: 'file', filename: '', value: 'x' }], /no filename/],
    ['a filename with a slash', [{ name: 'file', filename: 'a/b.txt', value: 'x' }], /Invalid filename/],
    [
      'expires_after below 3600',
      [
        { name: 'expires_after', value: '3599' },
        { name: 'file', filename: 'a.txt', value: 'x' },
      ],
      /at least 3600 and at most 2592000/,
    ],
    [
      'expires_after above 2592000',
      [
        { name: 'expires_after', value: '2592001' },
        { name: 'file', filename: 'a.txt', value: 'x' },
      ],
      /at least 3600 and at most 2592000/,
    ],
    [
      'expires_after not a number',
      [
        { name: 'expires_after', value: '1h' },
        { name: 'file', filename: 'a.txt', value: 'x' },
      ],
      /at least 3600 and at most 2592000/,
    ],
  ];
  for (const [name, parts, msg] of bad) {
    it(`400: ${name}`, async () => {
      const r = await call('POST', '/v1/files', { form: parts });
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ code: 'invalid-argument', error: expect.stringMatching(msg) });
    });
  }

  it('400 for a body that is not multipart or is cut short', async () => {
    expect((await call('POST', '/v1/files', { json: {} })).status).toBe(400);
    const res = await fetch(`${emu.url}/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'multipart/form-data; boundary=zz' },
      body: '--zz\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nno end',
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/ended before its closing boundary/);
  });

  it('413 over the size limit (a setting, 50 MiB by default)', async () => {
    emu.core.settings.maxFileBytes = 1000;
    try {
      const r = await call('POST', '/v1/files', {
        form: [{ name: 'file', filename: 'big.bin', value: Buffer.alloc(1001) }],
      });
      expect(r.status).toBe(413);
      expect(r.json.code).toBe('payload-too-large');
      const ok = await call('POST', '/v1/files', {
        form: [{ name: 'file', filename: 'fits.bin', value: Buffer.alloc(1000) }],
      });
      expect(ok.status).toBe(200);
    } finally {
      delete emu.core.settings.maxFileBytes;
    }
  });
});

describe('files: lifetime, teams, links', () => {
  it('an expired file is gone: metadata, content and list', async () => {
    const f = await upload('soon.txt', 'bye', [{ name: 'expires_after', value: '3600' }]);
    emu.core.store.collection<{ expires_at: number }>('files').get(f.id)!.expires_at =
      Math.floor(Date.now() / 1000) - 1;
    expect((await call('GET', `/v1/files/${f.id}`)).status).toBe(404);
    expect((await call('GET', `/v1/files/${f.id}/content`)).status).toBe(404);
    const list = await call('GET', '/v1/files?limit=100');
    expect(list.json.data.map((x: { id: string }) => x.id)).not.toContain(f.id);
  });

  it('another team cannot see a file (404)', async () => {
    const f = await upload();
    const other = emu.addKey({ team_id: 'team_other' });
    expect((await call('GET', `/v1/files/${f.id}`, { key: other.key })).status).toBe(404);
    expect((await call('GET', '/v1/files', { key: other.key })).json).toEqual({ data: [], pagination_token: '' });
  });

  it('content streams the exact bytes; format must be original or text', async () => {
    const payload = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    const f = await upload('bytes.bin', payload as unknown as string);
    const res = await fetch(`${emu.url}/v1/files/${f.id}/content`, { headers: { authorization: `Bearer ${emu.key}` } });
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await res.arrayBuffer()).equals(payload)).toBe(true);
    expect((await call('GET', `/v1/files/${f.id}/content?format=pdf`)).status).toBe(400);
  });

  it('public link: no auth needed, revoke answers revoked true then false, 404 afterwards', async () => {
    const f = await upload('pub.txt', 'public bytes');
    const none = await call('POST', `/v1/files/${f.id}/public-url/revoke`);
    expect(none.json).toEqual({ id: f.id, revoked: false, public_url: '' });
    const link = await call('POST', `/v1/files/${f.id}/public-url`, { json: { expires_after: 3600 } });
    expect(link.status).toBe(200);
    expect(link.json.public_url).toMatch(new RegExp(`^${emu.core.publicUrl}/files/`));
    const pub = await call('GET', new URL(link.json.public_url).pathname, { key: null });
    expect(pub.status).toBe(200);
    expect(pub.text).toBe('public bytes');
    const rev = await call('POST', `/v1/files/${f.id}/public-url/revoke`);
    expect(rev.json).toEqual({ id: f.id, revoked: true, public_url: link.json.public_url });
    expect((await call('GET', new URL(link.json.public_url).pathname, { key: null })).status).toBe(404);
  });

  it('public link rules: range, remaining lifetime, empty file, JSON body required', async () => {
    const f = await upload('life.txt', 'x', [{ name: 'expires_after', value: '7200' }]);
    expect((await call('POST', `/v1/files/${f.id}/public-url`, { json: { expires_after: 3599 } })).status).toBe(400);
    expect((await call('POST', `/v1/files/${f.id}/public-url`, { json: { expires_after: 2592001 } })).status).toBe(400);
    const beyond = await call('POST', `/v1/files/${f.id}/public-url`, { json: { expires_after: 10800 } });
    expect(beyond.status).toBe(400);
    expect(beyond.json.error).toMatch(/remaining lifetime/);
    const inherit = await call('POST', `/v1/files/${f.id}/public-url`, { json: {} });
    expect(inherit.json.expires_at).toBe(f.expires_at);
    const empty = await upload('empty.txt', '');
    expect((await call('POST', `/v1/files/${empty.id}/public-url`, { json: {} })).json.error).toMatch(/empty file/);
    const noBody = await fetch(`${emu.url}/v1/files/${f.id}/public-url`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.key}` },
    });
    expect(noBody.status).toBe(415);
  });

  // the emulator's default quota (1000: 2,001 requests, each journaled) in the full run; outside it the setting at 25
  // (test/helpers/full.ts)
  const QUOTA = fullOr(1000, 25);
  it(`the ${QUOTA} active links quota: one more is a 429; revoking one frees a place`, async () => {
    if (QUOTA !== 1000) emu.core.settings.publicLinkQuota = QUOTA;
    try {
      await linksUpToQuota();
    } finally {
      delete emu.core.settings.publicLinkQuota;
    }
  }, 180_000);

  async function linksUpToQuota() {
    const team = emu.addKey({ team_id: 'team_quota' });
    // the uploads, then the links, 20 requests in flight (2,001 round trips one after another mostly waited): each of
    // 20 senders sends its next request as soon as its last one is answered, so that no kept-alive connection idles
    // (one idle for seconds in a starved process can be closed by the server as a request goes out on it: ECONNRESET)
    const inFlight = async <T>(n: number, one: (i: number) => Promise<T>): Promise<T[]> => {
      const all: T[] = [];
      let next = 0;
      const sender = async () => {
        while (next < n) {
          const i = next++;
          all[i] = await one(i);
        }
      };
      await Promise.all(Array.from({ length: 20 }, sender));
      return all;
    };
    const ids = await inFlight(QUOTA + 1, async (i) => {
      const r = await call('POST', '/v1/files', {
        key: team.key,
        form: [{ name: 'file', filename: `q${i}.txt`, value: 'q' }],
      });
      return r.json.id as string;
    });
    const shared = await inFlight(QUOTA, (i) =>
      call('POST', `/v1/files/${ids[i]}/public-url`, { key: team.key, json: {} }),
    );
    expect(shared.map((r) => r.status)).toEqual(Array(QUOTA).fill(200));
    const over = await call('POST', `/v1/files/${ids[QUOTA]}/public-url`, { key: team.key, json: {} });
    expect(over.status).toBe(429);
    expect(over.json).toEqual({
      code: 'resource-exhausted',
      error: expect.stringMatching(new RegExp(`${QUOTA} active public file URLs`)),
    });
    // sharing an already shared file again is not a new link
    expect((await call('POST', `/v1/files/${ids[0]}/public-url`, { key: team.key, json: {} })).status).toBe(200);
    await call('POST', `/v1/files/${ids[0]}/public-url/revoke`, { key: team.key });
    expect((await call('POST', `/v1/files/${ids[QUOTA]}/public-url`, { key: team.key, json: {} })).status).toBe(200);
    // 2,000 acknowledged (so journaled) writes in the full run: the bound is for a machine under the full suite's load
  }

  it('list query rules: limit 1-100, order, sort_by, token', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=x', 'order=up', 'sort_by=name', 'pagination_token=garbage']) {
      const r = await call('GET', `/v1/files?${q}`);
      expect(r.status, q).toBe(400);
    }
    const r = await call('GET', '/v1/files?limit=1');
    const next = await call('GET', `/v1/files?limit=1&sort_by=size&pagination_token=${r.json.pagination_token}`);
    expect(next.json.error).toMatch(/another sort_by or order/);
  });
});

describe('streaming multipart parser', () => {
  it('parses bodies split at every byte boundary', async () => {
    const { tmpdir } = await import('node:os');
    const { readFileSync } = await import('node:fs');
    const mp = buildMultipart([
      { name: 'expires_after', value: '3600' },
      { name: 'file', filename: 'q"uote.bin', data: Buffer.from(`\r\n--not-a-boundary\r\n${'z'.repeat(50)}`) },
    ]);
    const chunks: Buffer[] = [];
    for await (const c of mp.body()) chunks.push(Buffer.from(c));
    const whole = Buffer.concat(chunks);
    expect(whole.length).toBe(mp.contentLength);
    for (let cut = 1; cut < whole.length; cut += 7) {
      const parts = await parseForm(
        (async function* () {
          yield whole.subarray(0, cut);
          yield whole.subarray(cut);
        })(),
        mp.contentType,
        { dir: tmpdir(), maxFileBytes: 1000 },
      );
      expect(parts.map((p) => p.name)).toEqual(['expires_after', 'file']);
      const file = parts[1]!;
      if (file.kind !== 'file') throw new Error('not a file');
      expect(file.filename).toBe('q"uote.bin');
      expect(readFileSync(file.path).toString()).toBe(`\r\n--not-a-boundary\r\n${'z'.repeat(50)}`);
    }
  });
});

describe('skills, images and videos routes', () => {
  const zip = (entries: Record<string, string>) =>
    Buffer.from(zipSync(Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, Buffer.from(v)]))));

  it('skills: 400 without SKILL.md front matter, 200 with it, cursor list', async () => {
    const noMd = await call('POST', '/v1/skills', {
      form: [{ name: 'files', filename: 's.zip', value: zip({ 'a.txt': 'x' }), type: 'application/zip' }],
    });
    expect(noMd.status).toBe(400);
    const noFm = await call('POST', '/v1/skills', {
      form: [{ name: 'files', filename: 's.zip', value: zip({ 'SKILL.md': '# hi' }) }],
    });
    expect(noFm.json.error).toMatch(/no front matter/);
    const notZip = await call('POST', '/v1/skills', { form: [{ name: 'files', filename: 's.zip', value: 'plain' }] });
    expect(notZip.json.error).toMatch(/not a valid zip/);
    for (let i = 0; i < 3; i++) {
      const ok = await call('POST', '/v1/skills', {
        form: [
          {
            name: 'files',
            filename: 's.zip',
            value: zip({ 'd/SKILL.md': `---\nname: n${i}\ndescription: d${i}\n---\n` }),
          },
        ],
      });
      expect(ok.json).toMatchObject({ object: 'skill', name: `n${i}`, description: `d${i}` });
    }
    const page = await call('GET', '/v1/skills?limit=2');
    expect(page.json).toMatchObject({ object: 'list', has_more: true });
    expect(page.json.data.map((s: { name: string }) => s.name)).toEqual(['n2', 'n1']);
    const rest = await call('GET', `/v1/skills?limit=2&after=${page.json.last_id}`);
    expect(rest.json.data.map((s: { name: string }) => s.name)).toEqual(['n0']);
    expect(rest.json.has_more).toBe(false);
    expect((await call('GET', '/v1/skills?limit=101')).status).toBe(400);
  });

  it('images: n 1-10, formats, prompt length against max_prompt_length, 422 without prompt', async () => {
    expect((await call('POST', '/v1/images/generations', { json: { prompt: 'x', n: 11 } })).status).toBe(400);
    expect((await call('POST', '/v1/images/generations', { json: { prompt: 'x', n: 0 } })).status).toBe(400);
    expect(
      (await call('POST', '/v1/images/generations', { json: { prompt: 'x', response_format: 'png' } })).status,
    ).toBe(400);
    expect((await call('POST', '/v1/images/generations', { json: { prompt: 'x', aspect_ratio: '5:7' } })).status).toBe(
      400,
    );
    const long = await call('POST', '/v1/images/generations', { json: { prompt: 'x'.repeat(1025) } });
    expect(long.json.error).toMatch(/at most 1024/);
    const missing = await call('POST', '/v1/images/generations', { json: { model: 'svc-image-1' } });
    expect(missing.status).toBe(422);
    expect(missing.text).toMatch(/missing field `prompt`/);
    expect(
      (await call('POST', '/v1/images/edits', { json: { prompt: 'x', image: { url: 'file:///etc/passwd' } } })).status,
    ).toBe(400);
    const b64 = await call('POST', '/v1/images/generations', {
      json: { prompt: 'x', n: 3, response_format: 'b64_json' },
    });
    expect(b64.json.data).toHaveLength(3);
    const png = Buffer.from(b64.json.data[0].b64_json, 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });

  it('videos: ranges; 202 with progress, then done; failed prompts carry an error', async () => {
    expect((await call('POST', '/v1/videos/generations', { json: { prompt: 'x', duration: 16 } })).status).toBe(400);
    expect((await call('POST', '/v1/videos/generations', { json: { prompt: 'x', duration: 0 } })).status).toBe(400);
    expect((await call('POST', '/v1/videos/generations', { json: { prompt: 'x', resolution: '4k' } })).status).toBe(
      400,
    );
    expect(
      (
        await call('POST', '/v1/videos/extensions', {
          json: { prompt: 'x', video: { url: 'https://e/v.mp4' }, duration: 11 },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call('POST', '/v1/videos/extensions', {
          json: { prompt: 'x', video: { url: 'https://e/v.mp4' }, duration: 1 },
        })
      ).status,
    ).toBe(400);
    expect((await call('POST', '/v1/videos/edits', { json: { prompt: 'x' } })).status).toBe(422);
    // ordering, not timing: the job stays pending until the test marks it ready
    emu.core.settings.videoDelayMs = 3_600_000;
    const { json } = await call('POST', '/v1/videos/generations', { json: { prompt: 'calm sea', duration: 2 } });
    emu.core.settings.videoDelayMs = 300;
    const first = await call('GET', `/v1/videos/${json.request_id}`);
    expect(first.status).toBe(202);
    expect(first.json).toMatchObject({ status: 'pending', progress: expect.any(Number) });
    emu.core.store.collection<{ ready_ms: number }>('video_jobs').get(json.request_id)!.ready_ms = 0;
    const done = await call('GET', `/v1/videos/${json.request_id}`);
    expect(done.json).toMatchObject({ status: 'done', video: { duration: 2, respect_moderation: true } });
    const file = await fetch(done.json.video.url);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    const fail = await call('POST', '/v1/videos/generations', { json: { prompt: 'please fail' } });
    await new Promise((r) => setTimeout(r, 350));
    const failed = await call('GET', `/v1/videos/${fail.json.request_id}`);
    expect(failed.status).toBe(200);
    expect(failed.json).toMatchObject({
      status: 'failed',
      error: { code: 'generation-failed', message: expect.any(String) },
    });
  });
});

describe('PNG encoder', () => {
  it('writes valid chunks whose pixels decode back', () => {
    const rgb = new Uint8Array([255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30]);
    const png = encodePng(2, 2, rgb);
    expect(png.readUInt32BE(16)).toBe(2);
    let off = 8;
    const idat: Buffer[] = [];
    while (off < png.length) {
      const len = png.readUInt32BE(off);
      const type = png.subarray(off + 4, off + 8).toString('latin1');
      const data = png.subarray(off + 8, off + 8 + len);
      expect(png.readUInt32BE(off + 8 + len)).toBe(zcrc32(png.subarray(off + 4, off + 8 + len)));
      if (type === 'IDAT') idat.push(data);
      off += 12 + len;
    }
    const raw = inflateSync(Buffer.concat(idat));
    expect([...raw]).toEqual([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 10, 20, 30]);
    expect(crc32(Buffer.from('hello'))).toBe(zcrc32('hello'));
  });

  it('pictures depend only on the seed', () => {
    expect(pictureFromSeed('a', 32, 16).equals(pictureFromSeed('a', 32, 16))).toBe(true);
    expect(pictureFromSeed('a', 32, 16).equals(pictureFromSeed('b', 32, 16))).toBe(false);
  });
});
