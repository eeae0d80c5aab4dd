import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstInvalidByte, readInputBytes, readInputText, utf8Text } from '../../src/core/input-file.js';
import { tempDir } from '../helpers/files.js';

describe('input files and text (issue 25, items 10 and 14)', () => {
  it('firstInvalidByte finds the first byte of a sequence that is not UTF-8', () => {
    expect(firstInvalidByte(Buffer.from('héllo 😀 ∑', 'utf8'))).toBe(-1);
    expect(firstInvalidByte(Buffer.from([0x63, 0x61, 0x66, 0xe9]))).toBe(3); // Latin-1 é
    expect(firstInvalidByte(Buffer.from([0x61, 0xe9, 0x61]))).toBe(1);
    expect(firstInvalidByte(Buffer.from([0xc0, 0xaf]))).toBe(0); // overlong
    expect(firstInvalidByte(Buffer.from([0xed, 0xa0, 0x80]))).toBe(0); // a surrogate
    expect(firstInvalidByte(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).toBe(0); // above U+10FFFF
    expect(firstInvalidByte(Buffer.from([0x61, 0xf0, 0x9f, 0x98]))).toBe(1); // cut at the end
    expect(firstInvalidByte(Buffer.from([0xbf]))).toBe(0); // a lone continuation byte
    expect(firstInvalidByte(Buffer.from([0xef, 0xbf, 0xbd]))).toBe(-1); // U+FFFD itself is text
  });

  it('utf8Text refuses invalid text naming its source; readInputBytes names the flag and the reason', () => {
    expect(() => utf8Text(Buffer.from([0x63, 0xe9]), 'stdin')).toThrow(/^stdin: not valid UTF-8 text \(byte 1/);
    const dir = tempDir();
    expect(() => readInputBytes('--input', join(dir, 'missing.json'))).toThrow(
      /^--input: cannot read .*missing\.json: no such file or directory \(ENOENT\)$/,
    );
    mkdirSync(join(dir, 'folder'));
    expect(() => readInputBytes('-F/--field', join(dir, 'folder'))).toThrow(
      /^-F\/--field: cannot read .*folder: it is a directory \(EISDIR\)$/,
    );
    writeFileSync(join(dir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(() => readInputText('--file', join(dir, 'latin1.txt'))).toThrow(/--file .*latin1\.txt: not valid UTF-8/);
  });
});
