// INPUT `-`: stdin is copied into a private temp file (read twice: checked whole, then sent, as a file is), which
// is removed when the process exits. Its kind is told as a file's without a known extension (input.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from '../runtime/context.js';

export async function spoolStdin(ctx: Context): Promise<string> {
  const { createWriteStream } = await import('node:fs');
  const { pipeline } = await import('node:stream/promises');
  const dir = mkdtempSync(join(tmpdir(), 'svc-batch-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'stdin');
  await pipeline(ctx.streams.stdin, createWriteStream(path, { mode: 0o600 }));
  return path;
}
