// The --root of svc mcp serve: paths relative to it, refused when they lead outside (symbolic links followed).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Root } from '../../src/mcp/root.js';
import { tempDir } from '../helpers/files.js';

describe('Root', () => {
  const dir = tempDir('svc-root-');
  const outside = tempDir('svc-outside-');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(outside, 'secret'), 'x');
  symlinkSync(outside, join(dir, 'escape'));
  symlinkSync(join(outside, 'secret'), join(dir, 'secret-link'));
  const root = new Root(dir);

  it('takes a relative path from the root, and an absolute one under it', () => {
    expect(root.confine('sub/a.png', 'output', 'write')).toBe(join(root.real, 'sub', 'a.png'));
    expect(root.confine(join(root.real, 'b.png'), 'output', 'write')).toBe(join(root.real, 'b.png'));
    expect(root.confine('new/deeper/c.png', 'output', 'write')).toBe(join(root.real, 'new', 'deeper', 'c.png'));
  });

  it('refuses .., absolute paths elsewhere, and symbolic links that lead out', () => {
    for (const p of ['../x.png', '/etc/passwd', join(outside, 'y.png'), 'escape/z.png', 'secret-link', 'sub/../../q'])
      expect(() => root.confine(p, 'path', 'read'), p).toThrow(/is not allowed: a path under .* \(the --root/);
  });

  it('a root that does not exist is refused', () => {
    expect(() => new Root(join(dir, 'nope'))).toThrow(/--root: .*nope is not allowed: a folder that exists/);
  });
});
