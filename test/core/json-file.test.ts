// svc's own small JSON files (src/core/json-file.ts): replaced whole, and a failure names the file and leaves no temp.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeJsonFile } from '../../src/core/json-file.js';
import { FileWriteError } from '../../src/core/errors.js';
import { tempDir } from '../helpers/files.js';

describe('writeJsonFile', () => {
  it('makes the folder, writes the JSON (pretty when asked) and replaces an existing file whole', () => {
    const dir = tempDir();
    const file = join(dir, 'a', 'b.json');
    writeJsonFile(file, { x: 1 });
    expect(readFileSync(file, 'utf8')).toBe('{"x":1}');
    writeJsonFile(file, { y: [2] }, { pretty: true });
    expect(readFileSync(file, 'utf8')).toBe('{\n  "y": [\n    2\n  ]\n}');
    expect(readdirSync(join(dir, 'a'))).toEqual(['b.json']);
  });

  it('fails with an error that names the file, and leaves no temp file', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'blocked'), 'a file where a folder should be');
    const file = join(dir, 'blocked', 'c.json');
    expect(() => writeJsonFile(file, {})).toThrow(FileWriteError);
    expect(() => writeJsonFile(file, {})).toThrow(`cannot write ${file}: something is already in the way`);
    // a folder at the target: the write of the temp file succeeds, the rename fails
    const target = join(dir, 'target.json');
    writeJsonFile(join(target, 'inside.json'), {});
    expect(() => writeJsonFile(target, { z: 1 })).toThrow(/cannot write .*target\.json/);
    expect(readdirSync(dir).sort()).toEqual(['blocked', 'target.json']);
  });
});
