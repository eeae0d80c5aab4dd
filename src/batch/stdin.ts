// INPUT `-`: stdin is copied into a private temp file (read twice: checked whole, then sent, as a file is), which
// is removed when the process exits. Its kind is told from its first line: a JSON object (JSON Lines), tabs (TSV),
// commas (CSV), else plain lines of text.
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from '../runtime/context.js';
import type { InputKind } from './input.js';

export async function spoolStdin(ctx: Context): Promise<{ path: string; kind: InputKind }> {
  const { createWriteStream } = await import('node:fs');
  const { pipeline } = await import('node:stream/promises');
  const dir = mkdtempSync(join(tmpdir(), 'svc-batch-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'stdin');
  await pipeline(ctx.streams.stdin, createWriteStream(path, { mode: 0o600 }));
  return { path, kind: sniff(path) };
}

function sniff(path: string): InputKind {
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(4096);
  const n = readSync(fd, buf, 0, buf.length, 0);
  closeSync(fd);
  const first = buf.subarray(0, n).toString('utf8').split(/\r?\n/)[0] ?? '';
  if (first.trimStart().startsWith('{')) return 'jsonl';
  if (first.includes('\t')) return 'tsv';
  return first.includes(',') ? 'csv' : 'lines';
}
