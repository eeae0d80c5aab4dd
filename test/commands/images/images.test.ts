import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
let base: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  base = tempDir('svc-images-');
});
afterAll(() => emu.close());

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const dims = (b: Buffer) => ({ width: b.readUInt32BE(16), height: b.readUInt32BE(20) });
let n = 0;
const fresh = () => {
  const d = join(base, `d${n++}`);
  mkdirSync(d);
  return d;
};

describe('svc images generate', () => {
  it('saves real PNGs in the current directory and prints their paths', async () => {
    const cwd = fresh();
    const r = await svcInProcess(['images', 'generate', 'a', 'red', 'fox', '-n', '2'], { emu, cwd });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('image-1.png\nimage-2.png\n');
    const a = readFileSync(join(cwd, 'image-1.png'));
    const b = readFileSync(join(cwd, 'image-2.png'));
    expect(a.subarray(0, 8).equals(PNG)).toBe(true);
    expect(dims(a)).toEqual({ width: 256, height: 256 });
    expect(a.equals(b)).toBe(false);
    const req = emu.requests().find((x) => x.path === '/v1/images/generations')!;
    expect(JSON.parse(req.body!)).toEqual({ prompt: 'a red fox', model: 'svc-image-1', n: 2 });
    // the image URL is fetched without the API key
    const fetches = emu.requests().filter((x) => x.path.startsWith('/public/images/'));
    expect(fetches).toHaveLength(2);
    for (const f of fetches) expect(f.headers.authorization).toBeUndefined();
  });

  it('never overwrites in a directory: the next free names are used', async () => {
    const cwd = fresh();
    writeFileSync(join(cwd, 'image-1.png'), 'mine');
    const r = await svcInProcess(['images', 'generate', 'a red fox', '-o', cwd], { emu });
    expect(r.stdout).toBe(`${join(cwd, 'image-2.png')}\n`);
    expect(readFileSync(join(cwd, 'image-1.png'), 'utf8')).toBe('mine');
  });

  it('is deterministic: b64_json gives the same bytes as the URL, and the aspect ratio shapes it', async () => {
    const d = fresh();
    await svcInProcess(['images', 'generate', 'a lighthouse', '-o', join(d, 'url.png')], { emu });
    const r = await svcInProcess(
      ['images', 'generate', 'a lighthouse', '--response-format', 'b64_json', '-o', join(d, 'b64.png')],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(d, 'b64.png')).equals(readFileSync(join(d, 'url.png')))).toBe(true);
    await svcInProcess(['images', 'generate', 'a lighthouse', '--aspect-ratio', '16:9', '-o', join(d, 'wide.png')], {
      emu,
    });
    expect(dims(readFileSync(join(d, 'wide.png')))).toEqual({ width: 256, height: 144 });
  });

  it("-o DIR/ makes the folder when it is missing, as the help's example does (issue 42 item 15)", async () => {
    const cwd = fresh();
    const r = await svcInProcess(['images', 'generate', 'app icon, flat', '-n', '2', '-o', 'icons/'], { emu, cwd });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('icons/image-1.png\nicons/image-2.png\n');
    expect(readdirSync(join(cwd, 'icons')).sort()).toEqual(['image-1.png', 'image-2.png']);
  });

  it('-o FILE with -n 3 numbers the files', async () => {
    const d = fresh();
    const r = await svcInProcess(['images', 'generate', 'icons', '-n', '3', '-o', join(d, 'icon.png')], { emu });
    expect(r.stdout.trim().split('\n')).toEqual([1, 2, 3].map((i) => join(d, `icon-${i}.png`)));
    expect(readdirSync(d).sort()).toEqual(['icon-1.png', 'icon-2.png', 'icon-3.png']);
  });

  it('--json prints the raw reply and saves nothing without -o', async () => {
    const cwd = fresh();
    const r = await svcInProcess(['images', 'generate', 'x', '--response-format', 'b64_json', '--json'], { emu, cwd });
    const j = JSON.parse(r.stdout);
    expect(j.data[0]).toEqual({ b64_json: expect.any(String), mime_type: 'image/png' });
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('refuses to overwrite a named file without --force (nothing sent)', async () => {
    const d = fresh();
    writeFileSync(join(d, 'taken.png'), 'x');
    emu.clearRequests();
    const r = await svcInProcess(['images', 'generate', 'x', '-o', join(d, 'taken.png')], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/taken\.png already exists/);
    expect(emu.requests()).toHaveLength(0);
  });
});

describe('svc images edit', () => {
  it('sends a local image as a data URL and saves the result', async () => {
    const d = fresh();
    await svcInProcess(['images', 'generate', 'a cat', '-o', join(d, 'cat.png')], { emu });
    emu.clearRequests();
    const r = await svcInProcess(
      ['images', 'edit', 'make', 'it', 'night', '--image', join(d, 'cat.png'), '-o', join(d, 'night.png')],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const body = JSON.parse(emu.requests().find((x) => x.path === '/v1/images/edits')!.body!);
    expect(body.prompt).toBe('make it night');
    expect(body.image.url.startsWith('data:image/png;base64,')).toBe(true);
    expect(Buffer.from(body.image.url.split(',')[1], 'base64').equals(readFileSync(join(d, 'cat.png')))).toBe(true);
    expect(readFileSync(join(d, 'night.png')).subarray(0, 8).equals(PNG)).toBe(true);
  });

  it('passes an http(s) URL through unchanged', async () => {
    const d = fresh();
    emu.clearRequests();
    const r = await svcInProcess(
      ['images', 'edit', 'brighter', '--image', 'https://example.com/a.jpg', '-o', join(d, 'e.png')],
      { emu },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(emu.requests()[0]!.body!).image).toEqual({ url: 'https://example.com/a.jpg' });
  });
});

describe('limits checked before sending (exit 2, nothing sent)', () => {
  const txt = () => {
    const p = join(base, 'not-image.txt');
    writeFileSync(p, 'hello');
    return p;
  };
  const cases: [string, () => string[], RegExp][] = [
    ['-n 0', () => ['generate', 'x', '-n', '0'], /--n: 0 .*1 to 10/],
    ['-n 11', () => ['generate', 'x', '-n', '11'], /--n: 11 .*1 to 10/],
    ['--aspect-ratio 5:7', () => ['generate', 'x', '--aspect-ratio', '5:7'], /--aspect-ratio: 5:7 .*one of 1:1, 3:4/],
    [
      '--response-format png',
      () => ['generate', 'x', '--response-format', 'png'],
      /--response-format: png .*url, b64_json/,
    ],
    ['edit without --image', () => ['edit', 'x'], /--image: required/],
    [
      'edit with a missing image',
      () => ['edit', 'x', '--image', join(base, 'missing.png')],
      /missing\.png: no such file/,
    ],
    [
      'edit with a file that is not an image',
      () => ['edit', 'x', '--image', txt()],
      /not a PNG, JPEG, GIF or WebP image/,
    ],
    ['an empty prompt', () => ['generate', ''], /empty prompt/],
    [
      '-o into a folder that cannot be made (under a file)',
      () => ['generate', 'x', '-o', `${join(txt(), 'sub')}/`],
      /--output: cannot create the directory .*not-image\.txt\/sub\/ \(ENOTDIR\)/,
    ],
  ];
  for (const [name, args, msg] of cases) {
    it(name, async () => {
      const a = args();
      emu.clearRequests();
      const r = await svcInProcess(['images', ...a], { emu, cwd: base });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(emu.requests()).toHaveLength(0);
      expect(existsSync(join(base, 'image-1.png'))).toBe(false);
    });
  }
});
