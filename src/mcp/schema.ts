// A tool's input schema, derived from the flags of the command it runs (their request-table rows and checks), and
// the way back: a tool call's arguments turned into the command's option values, each through the flag's own check
// (so a value out of range is refused with the same message as on the command line, before anything is sent).
import type { OptionSpec } from '../core/option-spec.js';
import { optionKey } from '../core/request-table.js';
import { UsageError } from '../core/errors.js';

export type JsonSchema = Record<string, unknown>;

/** `--max-completion-tokens <n>` → `max_completion_tokens` (the property an agent fills). */
export const propertyName = (flags: string): string => optionKey(flags).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** the flag's long form: `-m, --model <id>` → `--model` */
export const longFlag = (flags: string): string => /--[a-z0-9-]+/i.exec(flags)?.[0] ?? flags;

const takesValue = (flags: string): boolean => /[<[]/.test(flags);
const negated = (flags: string): boolean => /(^|[ ,])--no-/.test(flags);

/** The JSON Schema of one flag's value: its check's own schema, else its choices, else a string or a boolean. */
export function flagSchema(spec: OptionSpec, description = spec.description): JsonSchema {
  if (!takesValue(spec.flags)) return { type: 'boolean', description };
  const own = spec.parse?.jsonSchema;
  if (own) return { ...own, description };
  if (spec.choices) return { type: 'string', enum: [...spec.choices], description };
  return { type: 'string', description };
}

/** The option values commander would start from: each flag's default, `true` for a `--no-x` flag. */
export function optionDefaults(specs: readonly OptionSpec[]): Record<string, unknown> {
  const opts: Record<string, unknown> = {};
  for (const s of specs) {
    const key = optionKey(s.flags);
    if (s.default !== undefined) opts[key] = s.default;
    else if (negated(s.flags) && opts[key] === undefined) opts[key] = true;
  }
  return opts;
}

/** One argument's value as the words commander would have parsed (a number as written, a list item by item). */
function words(flag: string, value: unknown, schema: JsonSchema): string[] {
  const list = Array.isArray(value) ? value : [value];
  if (Array.isArray(value) !== (schema.type === 'array')) {
    const allowed = schema.type === 'array' ? 'a list' : 'one value, not a list';
    throw new UsageError(`${flag}: ${JSON.stringify(value)} is not allowed: ${allowed}`);
  }
  return list.map((v) => {
    if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return String(v);
    throw new UsageError(`${flag}: ${JSON.stringify(v)} is not allowed: a string or a number`);
  });
}

/** Set the option a flag stands for from a tool argument, through the flag's check. */
export function applyFlag(opts: Record<string, unknown>, spec: OptionSpec, value: unknown): void {
  const key = optionKey(spec.flags);
  const flag = longFlag(spec.flags);
  if (!takesValue(spec.flags)) {
    if (typeof value !== 'boolean')
      throw new UsageError(`${flag}: ${JSON.stringify(value)} is not allowed: true or false`);
    opts[key] = negated(spec.flags) ? !value : value;
    return;
  }
  let parsed: unknown;
  for (const w of words(flag, value, flagSchema(spec))) parsed = spec.parse ? spec.parse(w, flag, parsed) : w;
  opts[key] = parsed;
}
