// A request table: one row per flag of an operation — the flag, the body field it fills and the check of its value.
// The command builds its options and its request body from the same rows, and the API-parameter coverage test
// (test/commands/api-parameters.test.ts) reads the rows to prove every documented field is reachable.
import { type OptionSpec, attributeName, flagName } from './option-spec.js';
import { type FlagParser, oneOf } from './validate.js';

export interface RequestRow extends OptionSpec {
  /** the body field this flag fills (a dotted path for a nested field); none: a local flag */
  field?: string;
  /**
   * the value sent for the parsed flag value; undefined sends nothing (default: booleans only when set, `--no-x` only
   * when off)
   */
  send?: (value: any, opts: any) => unknown;
  /** fields reached through this flag by the command's own code (not filled by fillBody): for the coverage test */
  reaches?: readonly string[];
}

export interface RequestTable<Rows extends readonly RequestRow[] = readonly RequestRow[]> {
  /** the operation, as `METHOD /path` of the spec */
  operation: string;
  /** literal (`as const satisfies RequestTable`): a command's opts are typed from them (OptionValues) */
  rows: Rows;
  /** body fields filled from arguments, input files or the command's own logic → how (for the coverage test) */
  inputs?: Record<string, string>;
}

/** `-m, --model <id>` → `model`, `--no-store` → `store` (commander's camelCase option key). */
export function optionKey(flags: string): string {
  return attributeName(flagName(flags));
}

function negated(flags: string): boolean {
  return /(^|[ ,])--no-/.test(flags);
}

function boolean(flags: string): boolean {
  return !/[<[]/.test(flags);
}

/** The option specs of rows (what the command spec lists); a listedRow's getters stay getters. */
export function tableOptions(rows: readonly RequestRow[]): OptionSpec[] {
  return rows.map((row) => {
    const { field: _f, send: _s, reaches: _r, ...descriptors } = Object.getOwnPropertyDescriptors(row);
    return Object.defineProperties({}, descriptors) as OptionSpec;
  });
}

/**
 * A row of one of `values`, which are read when first needed (the flag given, help, completion, an MCP tool's
 * schema), not when the row is made: `values` may load api-facts (core/lazy-api-facts.ts).
 */
export function listedRow<
  const Row extends Omit<RequestRow, 'description' | 'choices' | 'parse'>,
  T extends string,
  V = T,
>(
  row: Row,
  values: () => readonly T[],
  describe: (values: readonly T[]) => string,
  /** the parser of one value made into the flag's (repeatable, for a flag given many times) */
  parseWith: (one: FlagParser<T>) => FlagParser<V> = (one) => one as unknown as FlagParser<V>,
): Row & { description: string; choices: readonly T[]; parse: FlagParser<V> } {
  return Object.defineProperties(
    { ...row, parse: parseWith(oneOf(values)) },
    {
      description: { get: () => describe(values()), enumerable: true },
      choices: { get: values, enumerable: true },
    },
  ) as never;
}

/** Sets a dotted path (`reasoning.effort`) in an object, creating the objects on the way. */
export function setPath(body: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = body;
  for (const k of keys.slice(0, -1)) {
    if (typeof at[k] !== 'object' || at[k] === null) at[k] = {};
    at = at[k] as Record<string, unknown>;
  }
  at[keys[keys.length - 1]!] = value;
}

/** Fills `body` with the field of every row whose flag was given. */
export function fillBody<B extends object>(rows: readonly RequestRow[], opts: object, body: B): B {
  for (const row of rows) {
    if (!row.field) continue;
    const value = (opts as Record<string, unknown>)[optionKey(row.flags)];
    // a flag not given sends nothing (a `--no-x` not given is true): no test of its name
    if (value === undefined && !row.send) continue;
    let sent: unknown;
    if (row.send) sent = row.send(value, opts);
    else if (negated(row.flags)) sent = value === false ? false : undefined;
    else if (boolean(row.flags)) sent = value === true ? true : undefined;
    else sent = value;
    if (sent !== undefined) setPath(body as Record<string, unknown>, row.field, sent);
  }
  return body;
}

/** Every body field a table reaches (rows, what they reach through code, and inputs). */
export function reachedFields(table: RequestTable): string[] {
  const out = new Set<string>();
  for (const r of table.rows) {
    if (r.field) out.add(r.field);
    for (const f of r.reaches ?? []) out.add(f);
  }
  for (const f of Object.keys(table.inputs ?? {})) out.add(f);
  return [...out];
}
