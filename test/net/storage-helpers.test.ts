// Unit tests for the storage helpers: multipart bodies, atomic saves, the progress bar.
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildMultipart } from '../../src/net/multipart.js';
import { checkTarget, safeFileName, saveStream } from '../../src/net/download.js';
import { progressBar } from '../../src/term/progress.js';
import { Output } from '../../src/term/output.js';

const dir = () => mkdtempSync(join(tmpdir(), 'svc-helpers-'));
const collect = async (it: AsyncIterable<Uint8Array>) => {
  const out: Buffer[] = [];
  for await (const c of it) out.push(Buffer.from(c));
  return Buffer.concat(out);
};

describe('buildMultipart', () => {
  it('has an exact Content-Length, replays identically, and streams the file from disk', async () => {
    const d = dir();
    const p = join(d, 'f.bin');
    writeFileSync(p, Buffer.alloc(700_000, 3));
    const seen: number[] = [];
    const mp = buildMultipart(
      [
        { name: 'expires_after', value: '3600' },
        { name: 'file', filename: 'f "x".bin', path: p, size: 700_000 },
      ],
      { chunkSize: 64 * 1024, onProgress: (sent) => seen.push(sent) },
    );
    const a = await collect(mp.body());
    const b = await collect(mp.body());
    expect(a.length).toBe(mp.contentLength);
    expect(a.equals(b)).toBe(true);
    const text = a.toString('latin1');
    expect(text.indexOf('name="expires_after"')).toBeLessThan(text.indexOf('name="file"'));
    expect(text).toContain('filename="f %22x%22.bin"');
    expect(text.endsWith(`--${mp.boundary}--\r\n`)).toBe(true);
    expect(seen.at(-1)).toBe(mp.contentLength);
    expect(seen.length).toBeGreaterThan(10); // chunked, not one read
  });

  it('fails when the file changed size after it was measured', async () => {
    const d = dir();
    const p = join(d, 'f.txt');
    writeFileSync(p, 'abc');
    const mp = buildMultipart([{ name: 'file', filename: 'f.txt', path: p, size: 5 }]);
    await expect(collect(mp.body())).rejects.toThrow(/changed size/);
  });
});

describe('saveStream', () => {
  it('renames into place only when complete', async () => {
    const d = dir();
    const target = join(d, 'out.bin');
    const n = await saveStream(
      (async function* () {
        yield Buffer.from('abc');
        yield Buffer.from('def');
      })(),
      target,
    );
    expect(n).toBe(6);
    expect(readFileSync(target, 'utf8')).toBe('abcdef');
    expect(readdirSync(d)).toEqual(['out.bin']);
  });

  it('a failing source leaves neither the target nor a temp file', async () => {
    const d = dir();
    const target = join(d, 'out.bin');
    await expect(
      saveStream(
        (async function* () {
          yield Buffer.alloc(100_000);
          throw new Error('connection lost');
        })(),
        target,
      ),
    ).rejects.toThrow('connection lost');
    expect(readdirSync(d)).toEqual([]);
  });

  it('a short body (fewer bytes than Content-Length) is an error and keeps nothing', async () => {
    const d = dir();
    const target = join(d, 'short.bin');
    await expect(
      saveStream(
        (async function* () {
          yield Buffer.alloc(10);
        })(),
        target,
        { expectedBytes: 20 },
      ),
    ).rejects.toThrow(/after 10 of 20 bytes/);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(d)).toEqual([]);
  });

  it('an abort removes the temp file', async () => {
    const d = dir();
    const ac = new AbortController();
    const src = new PassThrough();
    const p = saveStream(src, join(d, 'x.bin'), { signal: ac.signal });
    src.write(Buffer.alloc(1000));
    // wait for the temp file to appear (no time is asserted; the limit only avoids hanging)
    for (let i = 0; i < 500 && !readdirSync(d).some((n) => n.endsWith('.part')); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(readdirSync(d).some((n) => n.endsWith('.part'))).toBe(true);
    ac.abort();
    await expect(p).rejects.toThrow(/interrupted/);
    expect(readdirSync(d)).toEqual([]);
  });

  it('does not clobber a file that appeared meanwhile unless forced', async () => {
    const d = dir();
    const target = join(d, 'race.txt');
    const src = new PassThrough();
    const p = saveStream(src, target);
    writeFileSync(target, 'theirs');
    src.end('mine');
    await expect(p).rejects.toThrow(/already exists/);
    expect(readFileSync(target, 'utf8')).toBe('theirs');
    expect(readdirSync(d)).toEqual(['race.txt']);
  });

  it('checkTarget and safeFileName', () => {
    const d = dir();
    writeFileSync(join(d, 'e'), '');
    expect(() => checkTarget(join(d, 'e'))).toThrow(/already exists; --force \(or --clobber\) replaces it/);
    expect(checkTarget(join(d, 'e'), { force: true })).toBe(join(d, 'e'));
    expect(() => checkTarget(join(d, 'missing', 'x'))).toThrow(/does not exist/);
    expect(safeFileName('../../etc/passwd', 'id')).toBe('passwd');
    expect(safeFileName('..', 'id')).toBe('id');
    expect(safeFileName('a\nb', 'id')).toBe('a_b');
    expect(safeFileName('invoice\u202Etxt.exe', 'id')).toBe('invoice_txt.exe');
    expect(safeFileName('.bashrc', 'id')).toBe('_bashrc');
    expect(safeFileName('a\u009bb', 'id')).toBe('a_b');
  });
});

describe('progressBar', () => {
  const make = (isTTY: boolean, quiet = false) => {
    let text = '';
    const stderr = Object.assign(new PassThrough(), { isTTY, columns: 80 });
    stderr.on('data', (c) => (text += c));
    const stdout = Object.assign(new PassThrough(), { isTTY: false });
    const out = new Output(
      { stdin: new PassThrough(), stdout, stderr },
      { json: false, quiet, verbose: false, color: false, env: {} },
    );
    return { out, text: () => text };
  };

  it('draws percent, bytes and rate on a terminal, then erases itself', () => {
    const { out, text } = make(true);
    let t = 0;
    const bar = progressBar(out, 'uploading f', 1024 * 1024, { now: () => t, intervalMs: 100 });
    t = 1000;
    bar.update(512 * 1024);
    expect(text()).toMatch(/\ruploading f \[#+-+\]  50% 512 KiB\/1\.0 MiB 512 KiB\/s ETA 1s/);
    bar.update(600 * 1024); // within the interval: not redrawn
    expect(text().match(/\r/g)).toHaveLength(1);
    t = 2000;
    bar.update(1024 * 1024);
    expect(text()).toContain('100%');
    bar.done();
    expect(text().endsWith('\r\u001b[K')).toBe(true);
  });

  it('draws nothing in a pipe or with --quiet', () => {
    for (const [tty, quiet] of [
      [false, false],
      [true, true],
    ] as const) {
      const { out, text } = make(tty, quiet);
      const bar = progressBar(out, 'x', 10, { now: () => 1000 });
      bar.update(5);
      bar.done();
      expect(text()).toBe('');
    }
  });
});
