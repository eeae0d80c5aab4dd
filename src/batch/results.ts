// What a batch writes besides its journal: the output lines (stdout, or -o FILE written through an atomic file:
// a resume writes it anew, each row once), the binary results saved into --output-dir, and FAILED.jsonl.
import { existsSync, readdirSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Context } from '../runtime/context.js';
import type { HttpClient } from '../net/http.js';
import { AtomicFile, writeFileAtomic } from '../core/atomic-file.js';
import { processAlive } from '../core/signals.js';
import { normalizeUsage, reportedCost } from '../apilog/log.js';
import type { Row } from './input.js';
import type { RowResult } from './operations.js';
import type { BatchSpec } from './plan.js';
import { rowCostFrom } from './money.js';

export interface Sink {
  print(out: Record<string, unknown>): void;
  commit(): Promise<void>;
  discard(): Promise<void>;
}

/** The output: one JSON line per row, on stdout (through --jq) or into -o FILE. */
export async function openSink(ctx: Context, output: string | undefined): Promise<Sink> {
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
      queued.push(`${JSON.stringify(o)}\n`);
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

/** Turns a reply into the row's output record: files saved, usage normalized, the cost (the API's, else priced). */
export function rowFinisher(ctx: Context, spec: BatchSpec, outputDir: string | undefined, base: HttpClient) {
  const cost = rowCostFrom(ctx, base);
  /** names given in this run: a row whose id repeats one gets its row number added, never another row's file */
  const named = new Set<string>();
  return async (row: Row, result: RowResult, attempts: number): Promise<Record<string, unknown>> => {
    const out: Record<string, unknown> = { row: row.n };
    if (row.id !== undefined) out.id = row.id;
    if (row.line) out.line = row.line;
    out.status = 'done';
    if (result.text !== undefined) out.text = result.text;
    if (result.files?.length && outputDir) {
      let name = fileName(row, 6);
      if (named.has(name)) name = `${name}-row-${row.n}`;
      named.add(name);
      const files: string[] = [];
      for (const [i, f] of result.files.entries()) {
        const target = join(outputDir, `${name}${i ? `-${i + 1}` : ''}.${f.ext}`);
        await writeFileAtomic(target, f.data);
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
