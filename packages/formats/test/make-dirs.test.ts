// mkdir -p (svc-formats/make-dirs), used by svc and the emulator for every folder they make: where a folder cannot be
// made under one that exists (/proc), an error at once, not Node 20's endless loop of fs.mkdirSync's `recursive`.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirs } from '../src/make-dirs.js';

const root = mkdtempSync(join(tmpdir(), 'svc-make-dirs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('makeDirs', () => {
  it('makes every missing folder with the mode, and takes one that exists', () => {
    const deep = join(root, 'a', 'b', 'c');
    makeDirs(deep, 0o700);
    for (const d of [join(root, 'a'), join(root, 'a', 'b'), deep]) expect(statSync(d).mode & 0o777).toBe(0o700);
    makeDirs(deep, 0o700);
    expect(statSync(deep).isDirectory()).toBe(true);
  });

  it('a file in the way is EEXIST', () => {
    writeFileSync(join(root, 'file'), '');
    expect(() => makeDirs(join(root, 'file'))).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(() => makeDirs(join(root, 'file', 'below'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });

  it.runIf(process.platform === 'linux')('under /proc: ENOENT naming the folder, at once', () => {
    expect(() => makeDirs('/proc/svc-no-such/x')).toThrow(/cannot make a folder here, mkdir '\/proc\/svc-no-such'/);
  });
});
