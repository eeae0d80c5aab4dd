// INPUT `-`: stdin is copied into a private temp file (read twice: checked whole, then sent, as a file is), which
// is removed when the run is over (or, at the latest, when the process exits). Its kind is told as a file's without
// a known extension (input.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from '../runtime/context.js';

/** stdin's copy, and what removes it (and its `exit` listener: a process that runs many batches keeps none). */
export async function spoolStdin(ctx: Context): Promise<{ path: string; remove: () => void }> {
  const { createWriteStream } = await import('node:fs');
  const { pipeline } = await import('node:stream/promises');
  const dir = mkdtempSync(join(tmpdir(), 'svc-batch-'));
  const remove = () => {
    process.off('exit', remove);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', remove);
  const path = join(dir, 'stdin');
  try {
    await pipeline(ctx.streams.stdin, createWriteStream(path, { mode: 0o600 }));
  } catch (err) {
    remove();
    throw err;
  }
  return { path, remove };
}
