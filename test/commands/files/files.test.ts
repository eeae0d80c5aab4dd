import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-files-');
});
afterAll(() => emu.close());

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const filesReached = () => emu.requests().filter((r) => r.path.startsWith('/v1/files'));

async function upload(name: string, content: string | Buffer, extra: string[] = []): Promise<string> {
  const p = join(dir, name);
  writeFileSync(p, content);
  const r = await svcInProcess(['files', 'upload', p, ...extra], { emu });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.split('\t')[0]!;
}

describe('svc files upload', () => {
  it('streams files and prints id, filename and bytes per file in a pipe', async () => {
    const a = join(dir, 'one.txt');
    const b = join(dir, 'two.bin');
    writeFileSync(a, 'first file\n');
    writeFileSync(b, Buffer.alloc(300_000, 7));
    const r = await svcInProcess(['files', 'upload', a, b], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual([expect.stringMatching(/^file_/), 'one.txt', '11']);
    expect(rows[1]).toEqual([expect.stringMatching(/^file_/), 'two.bin', '300000']);
    expect(r.stderr).toBe(''); // no progress bar in a pipe
  });

  it('sends expires_after before the file part and purpose as a field', async () => {
    emu.clearRequests();
    const p = join(dir, 'exp.txt');
    writeFileSync(p, 'expiring');
    const r = await svcInProcess(['files', 'upload', p, '--expires-after', '1h', '--purpose', 'batch', '--json'], {
      emu,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const f = JSON.parse(r.stdout);
    expect(f).toMatchObject({ object: 'file', bytes: 8, filename: 'exp.txt', purpose: 'batch' });
    expect(f.expires_at - f.created_at).toBe(3600);
    const req = emu.requests().find((x) => x.method === 'POST' && x.path === '/v1/files')!;
    expect(String(req.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    const body = req.body!;
    expect(body.indexOf('name="expires_after"')).toBeGreaterThan(-1);
    expect(body.indexOf('name="expires_after"')).toBeLessThan(body.indexOf('name="file"'));
    expect(body).toContain('3600');
    expect(Number(req.headers['content-length'])).toBe(Buffer.byteLength(body));
  });

  it('--json prints one file object per line as the API sent it', async () => {
    const p = join(dir, 'j.txt');
    writeFileSync(p, 'j');
    const r = await svcInProcess(['files', 'upload', p, p, '--json'], { emu });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(Object.keys(lines[0]).sort()).toEqual([
      'bytes',
      'created_at',
      'expires_at',
      'filename',
      'id',
      'object',
      'purpose',
    ]);
  });

  it('replays the streamed body on a retry after a 429', async () => {
    const p = join(dir, 'retry.bin');
    const content = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 7) % 256));
    writeFileSync(p, content);
    emu.clearRequests();
    emu.faults.add({ kind: 'status', status: 429, retryAfter: '0', method: 'POST', path: '^/v1/files$' });
    const r = await svcInProcess(['files', 'upload', p], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(emu.requests().filter((x) => x.method === 'POST' && x.path === '/v1/files')).toHaveLength(2);
    const id = r.stdout.split('\t')[0]!;
    const out = join(dir, 'retry-back.bin');
    await svcInProcess(['files', 'download', id, '-o', out], { emu });
    expect(sha(readFileSync(out))).toBe(sha(content));
  });

  describe('limits checked before sending (exit 2, nothing sent)', () => {
    const cases: [string, string[], RegExp][] = [
      ['--expires-after below 3600 s', ['--expires-after', '59m'], /--expires-after: 59m.*3600 to 2592000/],
      ['--expires-after above 2592000 s', ['--expires-after', '31d'], /--expires-after: 31d.*3600 to 2592000/],
      ['--expires-after not a duration', ['--expires-after', 'soon'], /--expires-after: soon.*duration/],
    ];
    for (const [name, flags, msg] of cases) {
      it(name, async () => {
        emu.clearRequests();
        const p = join(dir, 'x.txt');
        writeFileSync(p, 'x');
        const r = await svcInProcess(['files', 'upload', p, ...flags], { emu });
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toMatch(msg);
        expect(emu.requests()).toHaveLength(0);
      });
    }

    it('a file over 50 MiB', async () => {
      emu.clearRequests();
      const ok = join(dir, 'small.txt');
      writeFileSync(ok, 'fine');
      const big = join(dir, 'big.bin');
      writeFileSync(big, '');
      truncateSync(big, 50 * 1024 * 1024 + 1); // sparse: no disk used
      const r = await svcInProcess(['files', 'upload', ok, big], { emu });
      expect(r.exitCode).toBe(2);
      // in MiB, with the limit and what to do (issue 42, item 10)
      expect(r.stderr).toMatch(
        /big\.bin: 50 MiB is over the upload limit of 50 MiB per file \(52428801 > 52428800 bytes\): split it into parts under the limit \(split -b 50M\) and upload each, or, for a server that takes more, set SVC_MAX_UPLOAD_BYTES/,
      );
      expect(emu.requests()).toHaveLength(0); // not even the small one went
    });

    it('a missing file and a directory', async () => {
      emu.clearRequests();
      const r1 = await svcInProcess(['files', 'upload', join(dir, 'nope.txt')], { emu });
      expect(r1.exitCode).toBe(2);
      expect(r1.stderr).toMatch(/nope\.txt: no such file/);
      const r2 = await svcInProcess(['files', 'upload', dir], { emu });
      expect(r2.exitCode).toBe(2);
      expect(r2.stderr).toMatch(/not a regular file/);
      expect(emu.requests()).toHaveLength(0);
    });
  });
});

describe('svc files get / list / delete', () => {
  it('get shows the metadata; --json every field', async () => {
    const id = await upload('meta.csv', 'a,b\n1,2\n');
    const r = await svcInProcess(['files', 'get', id], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`id\t${id}`);
    expect(r.stdout).toContain('filename\tmeta.csv');
    expect(r.stdout).toContain('bytes\t8');
    const j = await svcInProcess(['files', 'get', id, '--json'], { emu });
    expect(JSON.parse(j.stdout)).toMatchObject({
      id,
      object: 'file',
      bytes: 8,
      filename: 'meta.csv',
      expires_at: null,
    });
  });

  it('list prints tab-separated rows in a pipe, newest first by default', async () => {
    const r = await svcInProcess(['files', 'list', '--limit', '2'], { emu });
    expect(r.exitCode).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows).toHaveLength(2);
    expect(rows[0]![1]).toBe('meta.csv');
    expect(rows[0]).toHaveLength(5);
    expect(r.stderr).toMatch(/more files: --page-token \S+/);
  });

  it('list sorts by size ascending', async () => {
    const r = await svcInProcess(['files', 'list', '--sort-by', 'size', '--order', 'asc', '--json'], { emu });
    const sizes = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).bytes as number);
    expect(sizes.length).toBeGreaterThan(3);
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
  });

  for (const [name, flags, msg] of [
    ['--limit 0', ['--limit', '0'], /--limit: 0 .*1 to 100/],
    ['--limit 101', ['--limit', '101'], /--limit: 101 .*1 to 100/],
    ['--order sideways', ['--order', 'sideways'], /--order: sideways .*asc, desc/],
    ['--sort-by name', ['--sort-by', 'name'], /--sort-by: name .*created_at, filename, size/],
  ] as [string, string[], RegExp][]) {
    it(`list rejects ${name} before sending`, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['files', 'list', ...flags], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('an invalid filter is the API’s 400, shown with its position', async () => {
    const r = await svcInProcess(['files', 'list', '--filter', 'size_bytes > "big"'], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/invalid filter at position 1: size_bytes compares with a whole number.*HTTP 400/);
  });

  it('delete removes several ids; an unknown one exits 5 after the others are done', async () => {
    const a = await upload('d1.txt', 'd1');
    const b = await upload('d2.txt', 'd2');
    const r = await svcInProcess(['files', 'delete', a, 'file_missing', b, '--yes'], { emu });
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toBe(`${a}\tdeleted\n${b}\tdeleted\n`);
    expect(r.stderr).toMatch(/file_missing: No file with id file_missing \(HTTP 404/);
    const g = await svcInProcess(['files', 'get', a], { emu });
    expect(g.exitCode).toBe(5);
    const c = await svcInProcess(['files', 'download', b, '-o', join(dir, 'gone.txt')], { emu });
    expect(c.exitCode).toBe(5);
    expect(existsSync(join(dir, 'gone.txt'))).toBe(false);
  });
});

describe('svc files download', () => {
  it('round-trips bytes exactly, to a named file and into a directory under the stored name', async () => {
    const content = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 31) % 256));
    const id = await upload('blob.bin', content);
    const out = join(dir, 'out1.bin');
    const r = await svcInProcess(['files', 'download', id, '-o', out], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${out}\n`);
    expect(sha(readFileSync(out))).toBe(sha(content));
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    const r2 = await svcInProcess(['files', 'download', id, '-o', sub], { emu });
    expect(r2.exitCode, r2.stderr).toBe(0);
    expect(sha(readFileSync(join(sub, 'blob.bin')))).toBe(sha(content));
    expect(readdirSync(sub)).toEqual(['blob.bin']);
  });

  it('-o - writes the bytes to stdout; --format text asks for text', async () => {
    const id = await upload('note.md', '# title\nbody\n');
    emu.clearRequests();
    const r = await svcInProcess(['files', 'download', id, '-o', '-', '--format', 'text'], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('# title\nbody\n');
    expect(emu.requests().map((x) => [x.path, x.query.format])).toEqual([[`/v1/files/${id}/content`, 'text']]);
  });

  it('refuses to overwrite without --force (before sending), replaces with it', async () => {
    const id = await upload('keep.txt', 'new content');
    const out = join(dir, 'exists.txt');
    writeFileSync(out, 'old content');
    emu.clearRequests();
    const r = await svcInProcess(['files', 'download', id, '-o', out], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/exists\.txt already exists; --force \(or --clobber\) replaces it/);
    expect(emu.requests()).toHaveLength(0);
    expect(readFileSync(out, 'utf8')).toBe('old content');
    const f = await svcInProcess(['files', 'download', id, '-o', out, '--force'], { emu });
    expect(f.exitCode).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('new content');
  });

  it('rejects --format pdf before sending', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['files', 'download', 'file_x', '--format', 'pdf'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--format: pdf .*original, text/);
    expect(emu.requests()).toHaveLength(0);
  });

  it('--json reports id, path and bytes', async () => {
    const id = await upload('js.txt', '12345');
    const out = join(dir, 'js-out.txt');
    const r = await svcInProcess(['files', 'download', id, '-o', out, '--json'], { emu });
    expect(JSON.parse(r.stdout)).toEqual({ id, path: out, bytes: 5 });
  });
});

describe('svc files share / unshare', () => {
  it('a public URL works without auth, and 404s after unshare', async () => {
    const id = await upload('public.txt', 'for everyone');
    const r = await svcInProcess(['files', 'share', id, '--expires-after', '2h'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const url = r.stdout.trim();
    expect(url.startsWith(`${emu.url}/public/files/`)).toBe(true);
    expect(r.stderr).toMatch(/^expires \d{4}-/);
    const res = await fetch(url); // no Authorization header
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('for everyone');
    const u = await svcInProcess(['files', 'unshare', id, '--yes'], { emu });
    expect(u.exitCode).toBe(0);
    expect(u.stdout).toBe(`${id}\trevoked\t${url}\n`);
    expect((await fetch(url)).status).toBe(404);
    const again = await svcInProcess(['files', 'unshare', id, '--json', '--yes'], { emu });
    expect(JSON.parse(again.stdout)).toMatchObject({ id, revoked: false });
  });

  it('--json prints public_url and expires_at', async () => {
    const id = await upload('pj.txt', 'x');
    const r = await svcInProcess(['files', 'share', id, '--json'], { emu });
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j).sort()).toEqual(['expires_at', 'public_url']);
    expect(j.expires_at).toBeNull(); // inherits the file's expiry: none
  });

  for (const [name, value] of [
    ['below 3600 s', '30m'],
    ['above 2592000 s', '31d'],
  ]) {
    it(`rejects --expires-after ${name} before sending`, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['files', 'share', 'file_x', '--expires-after', value!], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`--expires-after: ${value} .*3600 to 2592000`));
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('rejects a link that would outlive the file, asking for no link', async () => {
    const id = await upload('short.txt', 'short-lived', ['--expires-after', '2h']);
    emu.clearRequests();
    const r = await svcInProcess(['files', 'share', id, '--expires-after', '3h'], { emu });
    // a GET was sent to learn the file's lifetime: exit 1, not the "nothing was sent" 2
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/--expires-after: 10800 seconds .*remaining lifetime \((71\d\d|7200) seconds/);
    expect(filesReached().map((x) => `${x.method} ${x.path}`)).toEqual([`GET /v1/files/${id}`]);
  });

  it('rejects sharing an empty file, asking for no link', async () => {
    const id = await upload('empty.txt', '');
    emu.clearRequests();
    const r = await svcInProcess(['files', 'share', id], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/empty file cannot be shared/);
    expect(filesReached().some((x) => x.path.endsWith('/public-url'))).toBe(false);
  });

  it('the link quota (429) is explained and exits 6', async () => {
    const id = await upload('quota.txt', 'q');
    // fill the team's quota with 1000 active links
    const links = emu.core.store.collection<Record<string, unknown>>('file_links');
    const files = emu.core.store.collection<Record<string, unknown>>('files');
    const team = emu.core.keys().get(emu.key)!.team_id;
    for (let i = 0; i < 1000; i++) {
      const fid = `file_quota${i}`;
      files.set(fid, { ...files.get(id)!, id: fid, seq: 100000 + i });
      links.set(`tok${i}`, {
        token: `tok${i}`,
        file_id: fid,
        team_id: team,
        created_at: 0,
        expires_at: null,
        revoked: false,
      });
    }
    try {
      const r = await svcInProcess(['files', 'share', id, '--max-retries', '0'], { emu });
      expect(r.exitCode).toBe(6);
      expect(r.stderr).toMatch(
        /public link quota or rate limit reached \(a team may have 1000 active links; revoke unused ones with `svc files unshare ID`\).*HTTP 429/,
      );
    } finally {
      for (let i = 0; i < 1000; i++) {
        links.delete(`tok${i}`);
        files.delete(`file_quota${i}`);
      }
    }
  });
});
