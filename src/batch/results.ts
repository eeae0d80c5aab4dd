// What a batch writes besides its journal: the output lines (stdout, or -o FILE written through an atomic file:
// a resume writes it anew, each row once), the binary results saved into --output-dir, and FAILED.jsonl.
import { existsSync, readdirSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Context } from '../runtime/context.js';
import type { JqFilter } from '../term/jq.js';
import type { HttpClient } from '../net/http.js';
import { AtomicFile, writeFileAtomic } from '../core/atomic-file.js';
import { processAlive } from '../core/signals.js';
import { normalizeUsage, reportedCost } from '../apilog/log.js';
import type { Row } from './input.js';
import type { RowResult } from './operations.js';
import { rowsToSend, type BatchSpec } from './plan.js';
import { rowCostFrom } from './money.js';

export interface Sink {
  print(out: Record<string, unknown>): void;
  commit(): Promise<void>;
  discard(): Promise<void>;
}

/** The output: one JSON line per row, on stdout or into -o FILE, through --jq either way. */
export async function openSink(ctx: Context, output: string | undefined, jq?: JqFilter): Promise<Sink> {
  if (!output || output === '-')
    return { print: (o) => ctx.out.printJsonLine(o), commit: async () => {}, discard: async () => {} };
  removeStaleTemps(output);
  const file = await AtomicFile.create(output);
  // lines are gathered and written in one write each time the one before has finished
  let queued: string[] = [];
  let writing: Promise<void> | undefined;
  let failed: unknown;
  const drain = async (): Promise<void> => {
    while (queued.length && !failed) {
      const text = queued.join('');
      queued = [];
      await file.write(Buffer.from(text)).catch((err) => void (failed ??= err));
    }
    writing = undefined;
  };
  return {
    print(o) {
      const text = jq ? jq.apply(o, false).replace(/\n$/, '') : JSON.stringify(o);
      if (jq && text === '') return; // the filter selected nothing
      queued.push(`${text}\n`);
      writing ??= drain();
    },
    async commit() {
      await (writing ?? drain());
      if (failed) throw failed;
      await file.commit();
    },
    discard: () => file.discard(),
  };
}

/**
 * The temp files a run killed with SIGKILL left beside the output (`.OUT.PID.RAND.part`, core/atomic-file), their
 * process gone: removed, as the resume writes the output anew.
 */
function removeStaleTemps(output: string): void {
  const dir = dirname(resolve(output));
  const name = basename(output).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const temp = new RegExp(`^\\.${name}\\.(\\d+)\\.[0-9a-f]{8}\\.part$`);
  for (const f of readdirSync(dir)) {
    const pid = Number(temp.exec(f)?.[1]);
    if (!pid || pid === process.pid || processAlive(pid)) continue;
    try {
      unlinkSync(join(dir, f));
    } catch {
      // gone already
    }
  }
}

/** A row's name for its files: its id made safe as a file name, else row-000042. */
function fileName(row: Row, width: number): string {
  if (row.id !== undefined && row.id !== '') return row.id.replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 120);
  return `row-${String(row.n).padStart(width, '0')}`;
}

/**
 * The names of rows' files: a row whose id repeats an earlier row's (in input order, whatever finishes first) gets
 * its row number added, never another row's file.
 */
async function rowNamer(spec: BatchSpec): Promise<(row: Row) => string> {
  const first = new Map<string, number>();
  for await (const row of rowsToSend(spec, () => false)) {
    const name = fileName(row, 6);
    if (!first.has(name)) first.set(name, row.n);
  }
  return (row) => {
    const name = fileName(row, 6);
    return first.get(name) === row.n ? name : `${name}-row-${row.n}`;
  };
}

/**
 * The files in `dir` that rows to send would be saved as (NAME.EXT or NAME-2.EXT…; the extension is the reply's),
 * rows for which `skip` says yes left out.
 */
export async function filesThere(spec: BatchSpec, dir: string, skip: (n: number) => boolean): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const byName = new Map<string, string[]>();
  for (const f of readdirSync(dir)) {
    const base = f.replace(/\.[^.]*$/, '');
    for (const name of new Set([base, base.replace(/-\d+$/, '')])) byName.set(name, [...(byName.get(name) ?? []), f]);
  }
  const nameOf = await rowNamer(spec);
  const there: string[] = [];
  for await (const row of rowsToSend(spec, skip)) {
    const files = byName.get(nameOf(row));
    if (files) there.push(...files.map((f) => join(dir, f)));
  }
  return there;
}

/** Turns a reply into the row's output record: files saved, usage normalized, the cost (the API's, else priced). */
export function rowFinisher(
  ctx: Context,
  spec: BatchSpec,
  outputDir: string | undefined,
  base: HttpClient,
  mayReplace: (row: Row) => boolean,
) {
  const cost = rowCostFrom(ctx, base);
  let names: Promise<(row: Row) => string> | undefined;
  return async (row: Row, result: RowResult, attempts: number): Promise<Record<string, unknown>> => {
    const out: Record<string, unknown> = { row: row.n };
    if (row.id !== undefined) out.id = row.id;
    if (row.line) out.line = row.line;
    out.status = 'done';
    if (result.text !== undefined) out.text = result.text;
    if (result.files?.length && outputDir) {
      names ??= rowNamer(spec);
      const name = (await names)(row);
      const files: string[] = [];
      for (const [i, f] of result.files.entries()) {
        const target = join(outputDir, `${name}${i ? `-${i + 1}` : ''}.${f.ext}`);
        // a file that appeared since the check is not replaced either, nor a link or pipe planted at the name
        await writeFileAtomic(target, f.data, { replace: mayReplace(row), regularOnly: true });
        files.push(target);
      }
      out.files = files;
    }
    out.reply = result.reply;
    const usage = normalizeUsage(result.usage);
    if (usage) out.usage = usage;
    // images bill per image (the catalogue's image_price), the rest by usage
    const images = spec.op.name === 'images' ? result.files?.length : undefined;
    if (usage || images) {
      const usd = reportedCost(result.usage) ?? (await cost(result.model ?? spec.model, { usage, images }));
      if (usd !== undefined) out.cost_usd = usd;
    }
    out.attempts = attempts;
    return out;
  };
}

/** FAILED.jsonl beside the journal: the failed rows' request bodies, ready to re-run; removed when none failed. */
export async function writeFailed(
  journalPath: string,
  failed: Map<number, Record<string, unknown>>,
): Promise<string | undefined> {
  const path = `${journalPath.replace(/\.journal$/, '')}.failed.jsonl`;
  if (!failed.size) {
    if (existsSync(path)) unlinkSync(path);
    return undefined;
  }
  const lines = [...failed.entries()].sort(([a], [b]) => a - b).map(([, body]) => JSON.stringify(body));
  await writeFileAtomic(path, `${lines.join('\n')}\n`);
  return path;
}
