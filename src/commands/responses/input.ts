// Reading `--input FILE|-` for `responses create` and `responses compact`: a JSON array of items, a JSON string,
// a compaction result or response object (its `output`), an input-items page (its `data`), JSON lines of items
// (e.g. `svc responses items ID --all --json`), or else plain text. Malformed JSON is refused (exit 2).
import type { InputItem } from '../../endpoints/responses.js';
import type { Context } from '../../runtime/context.js';
import { parseJsonOrText, readInputText } from '../../cmdutil/json-input.js';
import { fail } from '../../core/validate.js';

export function parseInputText(text: string, flag: string, source: string): string | InputItem[] {
  const parsed = parseJsonOrText(text, flag, source);
  if (parsed.kind === 'text') return parsed.text;
  if (parsed.kind === 'lines') return parsed.values as InputItem[];
  return fromJson(parsed.value, flag, source);
}

function fromJson(v: unknown, flag: string, source: string): string | InputItem[] {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    if (!v.every((x) => x && typeof x === 'object')) fail(flag, source, 'a JSON array of input items (objects)');
    return v as InputItem[];
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.output) && (o.object === 'response.compaction' || o.object === 'response'))
      return o.output as InputItem[];
    if (Array.isArray(o.data) && o.object === 'list') return o.data as InputItem[];
    if (typeof o.type === 'string' || typeof o.role === 'string') return [o as InputItem];
  }
  return fail(flag, source, 'input items: a JSON array, a compaction result, JSON lines of items, or plain text');
}

/** Read FILE, or stdin for `-`. */
export async function readInputFlag(ctx: Context, flag: string, path: string): Promise<string | InputItem[]> {
  return parseInputText(await readInputText(ctx, flag, path), flag, path === '-' ? 'stdin' : path);
}
