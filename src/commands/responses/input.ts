// Reading `--input FILE|-` for `responses create` and `responses compact`: a JSON array of items, a JSON string,
// a compaction result or response object (its `output`), an input-items page (its `data`), JSON lines of items
// (e.g. `svc responses items ID --all --json`), or else plain text.
import { readFileSync } from 'node:fs';
import type { InputItem } from '../../api/responses.js';
import type { Context } from '../../core/context.js';
import { fail } from '../../core/validate.js';

export function parseInputText(text: string, flag: string, source: string): string | InputItem[] {
  const t = text.trim();
  if (!t) fail(flag, source, 'a file with input: JSON items, JSON lines of items, or text (this one is empty)');
  if (/^[[{"]/.test(t)) {
    try {
      return fromJson(JSON.parse(t), flag, source);
    } catch (err) {
      if ((err as Error).name === 'UsageError') throw err;
      // maybe JSON lines
    }
    const lines = t.split(/\r?\n/).filter((l) => l.trim());
    try {
      const items = lines.map((l) => JSON.parse(l) as unknown);
      if (items.every((x) => x && typeof x === 'object' && !Array.isArray(x))) return items as InputItem[];
    } catch {
      // plain text that happens to start with a bracket
    }
  }
  return text;
}

function fromJson(v: unknown, flag: string, source: string): string | InputItem[] {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    if (!v.every((x) => x && typeof x === 'object')) fail(flag, source, 'a JSON array of input items (objects)');
    return v as InputItem[];
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.output) && (o.object === 'response.compaction' || o.object === 'response')) return o.output as InputItem[];
    if (Array.isArray(o.data) && o.object === 'list') return o.data as InputItem[];
    if (typeof o.type === 'string' || typeof o.role === 'string') return [o as InputItem];
  }
  return fail(flag, source, 'input items: a JSON array, a compaction result, JSON lines of items, or plain text');
}

/** Read FILE, or stdin for `-`. */
export async function readInputFlag(ctx: Context, flag: string, path: string): Promise<string | InputItem[]> {
  let text: string;
  if (path === '-') text = await ctx.readStdin();
  else {
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      return fail(flag, path, `a readable file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
  return parseInputText(text, flag, path === '-' ? 'stdin' : path);
}
