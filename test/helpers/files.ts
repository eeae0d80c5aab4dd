// Where the repository is, and temporary files and folders for a test.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');

export function tempDir(prefix = 'svc-t-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeTemp(name: string, content: string | Buffer): string {
  const p = join(tempDir(), name);
  writeFileSync(p, content);
  return p;
}
