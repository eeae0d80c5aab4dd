// Input files of the generation commands (`--input FILE|-`): one JSON value, JSON lines, or plain text. A file
// that starts like JSON (`{` or `[`) and is neither is refused rather than sent as text.
import { readInputText as readInputFile } from '../core/input-file.js';
import type { Context } from '../runtime/context.js';
import { fail } from '../core/validate.js';

export type ParsedInput =
  | { kind: 'json'; value: unknown }
  | { kind: 'lines'; values: Record<string, unknown>[] }
  | { kind: 'text'; text: string };

export function parseJsonOrText(text: string, flag: string, source: string): ParsedInput {
  const t = text.trim();
  if (!t) fail(flag, source, 'a file with input (this one is empty)');
  if (!/^[[{"]/.test(t)) return { kind: 'text', text };
  let error: string;
  try {
    return { kind: 'json', value: JSON.parse(t) };
  } catch (err) {
    error = (err as Error).message;
  }
  const lines = t.split(/\r?\n/).filter((l) => l.trim());
  if (lines.length > 1) {
    try {
      const values = lines.map((l) => JSON.parse(l) as unknown);
      if (values.every((x) => x && typeof x === 'object' && !Array.isArray(x)))
        return { kind: 'lines', values: values as Record<string, unknown>[] };
    } catch {
      // not JSON lines either
    }
  }
  if (t.startsWith('"')) return { kind: 'text', text };
  return fail(
    flag,
    source,
    `valid JSON or JSON lines (${error}); to send the text as it is, give it as arguments or on stdin`,
  );
}

/** The text of FILE, or of stdin for `-`. */
export async function readInputText(ctx: Context, flag: string, path: string): Promise<string> {
  if (path === '-') return ctx.readStdin();
  return readInputFile(flag, path);
}
