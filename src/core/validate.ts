// Checks applied to flags before anything is sent. Each failure names the flag, the value and what is allowed.
import { UsageError } from './errors.js';
import { didYouMean } from './suggest.js';

/** A flag parser: turns the raw string into a value, or throws a UsageError naming the flag. */
export type FlagParser<T = unknown> = ((raw: string, flag: string, previous: T | undefined) => T) & {
  /** what the parser accepts as a JSON Schema (read by the MCP server's tool schemas, src/mcp/) */
  jsonSchema?: Record<string, unknown>;
};

/** A parser with the JSON Schema of what it accepts. */
function accepting<T>(parser: FlagParser<T>, jsonSchema: Record<string, unknown>): FlagParser<T> {
  return Object.assign(parser, { jsonSchema });
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

export function fail(flag: string, value: unknown, allowed: string): never {
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  throw new UsageError(`${flag}: ${shown} is not allowed: ${allowed}`);
}

export interface NumberRule {
  min?: number;
  max?: number;
  /** min is exclusive (e.g. top_p > 0) */
  minExclusive?: boolean;
  integer?: boolean;
  int32?: boolean;
}

export function describeRange(rule: NumberRule): string {
  const kind = rule.integer || rule.int32 ? 'a whole number' : 'a number';
  const min = rule.min ?? (rule.int32 ? INT32_MIN : undefined);
  const max = rule.max ?? (rule.int32 ? INT32_MAX : undefined);
  if (min !== undefined && max !== undefined) {
    return rule.minExclusive ? `${kind} greater than ${min} and at most ${max}` : `${kind} from ${min} to ${max}`;
  }
  if (min !== undefined) return rule.minExclusive ? `${kind} greater than ${min}` : `${kind} of at least ${min}`;
  if (max !== undefined) return `${kind} of at most ${max}`;
  return kind;
}

/** `shown` is what the user typed, for the message (defaults to the value). */
export function checkNumber(flag: string, value: number, rule: NumberRule, shown: unknown = value): number {
  const allowed = describeRange(rule);
  if (!Number.isFinite(value)) fail(flag, shown, allowed);
  if ((rule.integer || rule.int32) && !Number.isInteger(value)) fail(flag, shown, allowed);
  const min = rule.min ?? (rule.int32 ? INT32_MIN : undefined);
  const max = rule.max ?? (rule.int32 ? INT32_MAX : undefined);
  if (min !== undefined && (rule.minExclusive ? value <= min : value < min)) fail(flag, shown, allowed);
  if (max !== undefined && value > max) fail(flag, shown, allowed);
  return value;
}

export function parseNumberStrict(raw: string): number {
  const t = raw.trim();
  if (t === '' || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return Number.NaN;
  return Number(t);
}

export function number(rule: NumberRule = {}): FlagParser<number> {
  const min = rule.min ?? (rule.int32 ? INT32_MIN : undefined);
  const max = rule.max ?? (rule.int32 ? INT32_MAX : undefined);
  return accepting((raw, flag) => checkNumber(flag, parseNumberStrict(raw), rule, raw), {
    type: rule.integer || rule.int32 ? 'integer' : 'number',
    ...(min === undefined ? {} : rule.minExclusive ? { exclusiveMinimum: min } : { minimum: min }),
    ...(max === undefined ? {} : { maximum: max }),
  });
}

export function integer(rule: Omit<NumberRule, 'integer'> = {}): FlagParser<number> {
  return number({ ...rule, integer: true });
}

/**
 * One of `values`; a function giving them is called when a value is checked or the schema read (a list of
 * api-facts, core/lazy-api-facts.ts, loaded only then).
 */
export function oneOf<T extends string>(
  values: readonly T[] | (() => readonly T[]),
  opts: { caseInsensitive?: boolean } = {},
): FlagParser<T> {
  const list = typeof values === 'function' ? values : () => values;
  const parser: FlagParser<T> = (raw, flag) => {
    const allowed = list();
    const found = opts.caseInsensitive
      ? allowed.find((v) => v.toLowerCase() === raw.toLowerCase())
      : allowed.find((v) => v === raw);
    if (found === undefined) fail(flag, raw, `one of ${allowed.join(', ')}${didYouMean(raw, allowed)}`);
    return found;
  };
  return Object.defineProperty(parser, 'jsonSchema', {
    get: () => ({ type: 'string', enum: [...list()] }),
    enumerable: true,
  });
}

export function maxLength(max: number): FlagParser<string> {
  return accepting(
    (raw, flag) => {
      if ([...raw].length > max)
        fail(flag, `${raw.slice(0, 20)}…`, `at most ${max} characters (got ${[...raw].length})`);
      return raw;
    },
    { type: 'string', maxLength: max },
  );
}

export function pattern(re: RegExp, allowed: string): FlagParser<string> {
  return (raw, flag) => {
    if (!re.test(raw)) fail(flag, raw, allowed);
    return raw;
  };
}

/** A calendar date YYYY-MM-DD that exists. */
export function isoDate(): FlagParser<string> {
  return (raw, flag) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
    const d = m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!)) : null;
    if (!m || !d || d.getUTCMonth() !== +m[2]! - 1 || d.getUTCDate() !== +m[3]!)
      fail(flag, raw, 'a date as YYYY-MM-DD');
    return raw;
  };
}

/** Repeatable flag: collects every occurrence into an array, each checked by `item`. */
export function repeatable<T = string>(item?: FlagParser<T>, opts: { max?: number } = {}): FlagParser<T[]> {
  const parser: FlagParser<T[]> = (raw, flag, previous) => {
    const list = previous ? [...previous] : [];
    list.push(item ? item(raw, flag, undefined) : (raw as unknown as T));
    if (opts.max !== undefined && list.length > opts.max) fail(flag, `${list.length} values`, `at most ${opts.max}`);
    return list;
  };
  // read when asked, as the item's may be (a list of api-facts loaded only then)
  return Object.defineProperty(parser, 'jsonSchema', {
    get: () => ({
      type: 'array',
      items: item?.jsonSchema ?? { type: 'string' },
      ...(opts.max === undefined ? {} : { maxItems: opts.max }),
    }),
    enumerable: true,
  });
}

/** A duration like 90, 90s, 30m, 1h, 7d → seconds. */
export function parseDuration(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?|w|weeks?)?$/i.exec(
    raw.trim(),
  );
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  const unit = (m[2] ?? 's').toLowerCase()[0];
  const factor = unit === 's' ? 1 : unit === 'm' ? 60 : unit === 'h' ? 3600 : unit === 'd' ? 86400 : 604800;
  return Math.round(n * factor);
}

export function duration(rule: { min?: number; max?: number } = {}): FlagParser<number> {
  return (raw, flag) => {
    const secs = parseDuration(raw);
    const range =
      rule.min !== undefined && rule.max !== undefined
        ? `a duration from ${rule.min} to ${rule.max} seconds (e.g. 3600, 90m, 1h, 30d)`
        : 'a duration such as 3600, 90m, 1h or 7d';
    if (!Number.isFinite(secs)) fail(flag, raw, range);
    if (rule.min !== undefined && secs < rule.min) fail(flag, raw, range);
    if (rule.max !== undefined && secs > rule.max) fail(flag, raw, range);
    return secs;
  };
}

/** `key=value` pairs, repeatable, into a record. */
export function keyValue<V = string>(
  value?: (raw: string, flag: string, key: string) => V,
): FlagParser<Record<string, V>> {
  return (raw, flag, previous) => {
    const i = raw.indexOf('=');
    if (i <= 0) fail(flag, raw, 'KEY=VALUE');
    const key = raw.slice(0, i);
    const v = raw.slice(i + 1);
    return { ...(previous ?? {}), [key]: value ? value(v, flag, key) : (v as unknown as V) };
  };
}

/** For checks that span several flags or need the collected value: throws a UsageError when `ok` is false. */
export function require(ok: boolean, flag: string, value: unknown, allowed: string): void {
  if (!ok) fail(flag, value, allowed);
}

/** A regular expression given as a flag (a filter): refused with the parser's reason when it does not compile. */
export function regex(): FlagParser<string> {
  return (raw, flag) => {
    try {
      new RegExp(raw);
    } catch (err) {
      fail(flag, raw, `a regular expression (${(err as Error).message})`);
    }
    return raw;
  };
}

/** A flag that takes a URL: one that parses, with an http(s) scheme and a host (`--rss feed.xml` is refused). */
export function httpUrl(): FlagParser<string> {
  return (raw, flag) => {
    let u: URL | undefined;
    try {
      u = new URL(raw);
    } catch {
      u = undefined;
    }
    if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:') || !u.hostname)
      fail(flag, raw, 'an http:// or https:// URL');
    return raw;
  };
}
