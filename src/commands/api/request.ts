import { readFileSync } from 'node:fs';
import { defineCommand } from '../../core/command.js';
import { UsageError } from '../../core/errors.js';
import { fail, repeatable } from '../../core/validate.js';
import type { Query } from '../../core/http.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

interface Opts {
  field?: [string, string][];
  rawField?: [string, string][];
  header?: [string, string][];
  input?: string;
  paginate?: boolean;
  include?: boolean;
}

/** `key=value`, split once. */
const pair = repeatable<[string, string]>((raw, flag) => {
  const i = raw.indexOf('=');
  if (i <= 0) fail(flag, raw, 'KEY=VALUE');
  return [raw.slice(0, i), raw.slice(i + 1)];
});
const headerPair = repeatable<[string, string]>((raw, flag) => {
  const i = raw.indexOf(':');
  if (i <= 0) fail(flag, raw, 'NAME: VALUE');
  const name = raw.slice(0, i).trim();
  if (/^authorization$/i.test(name)) fail(flag, name, 'any header but Authorization (the key comes from the configuration)');
  return [name, raw.slice(i + 1).trim()];
});

/** -F values: true/false/null, numbers, @file (its contents), JSON arrays/objects; anything else a string. */
export function typedValue(raw: string): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(raw)) return Number(raw);
  if (raw.startsWith('@')) {
    const path = raw.slice(1);
    const text = path === '-' ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
    return text.replace(/\n$/, '');
  }
  if ((raw.startsWith('{') && raw.endsWith('}')) || (raw.startsWith('[') && raw.endsWith(']'))) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

/** `a.b=1`, `a[b]=1` and `list[]=x` build nested objects, as gh api does. */
export function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.replace(/\]/g, '').split(/[.[]/);
  let cur: any = target;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    const last = i === parts.length - 1;
    const nextIsList = parts[i + 1] === '';
    if (p === '') {
      if (!Array.isArray(cur)) throw new UsageError(`field ${key}: [] must follow a list name`);
      if (last) cur.push(value);
      else {
        const obj = {};
        cur.push(obj);
        cur = obj;
      }
      continue;
    }
    if (last) cur[p] = value;
    else {
      cur[p] ??= nextIsList ? [] : {};
      cur = cur[p];
    }
  }
}

function nextCursor(page: any, query: Query): Query | undefined {
  if (!page || typeof page !== 'object') return undefined;
  const list = Object.values(page).find(Array.isArray) as unknown[] | undefined;
  if (!list || list.length === 0) return undefined;
  if (typeof page.has_more === 'boolean') {
    return page.has_more && page.last_id ? { ...query, after: page.last_id } : undefined;
  }
  if (typeof page.pagination_token === 'string' && page.pagination_token) {
    if (page.pagination_token === query.pagination_token) return undefined;
    // Lists that always return a token end on a short page.
    const limit = Number(query.limit ?? query.page_size ?? 0);
    if (limit && list.length < limit) return undefined;
    return { ...query, pagination_token: page.pagination_token };
  }
  return undefined;
}

export default defineCommand<Opts>({
  summary: 'Call any endpoint, raw and authenticated',
  description:
    'METHOD and PATH as in the API reference (PATH below the base URL, e.g. /v1/models). Fields become the JSON body (query parameters for GET/DELETE). The reply body is printed as sent (JSON pretty on a terminal). Errors map to the usual exit codes.',
  args: [
    { name: 'method', description: METHODS.join(', '), required: true },
    { name: 'path', description: 'path below the base URL, e.g. /v1/models', required: true },
  ],
  options: [
    { flags: '-f, --field <key=value>', description: 'a string field (repeatable; a.b and a[] nest)', parse: pair },
    { flags: '-F, --raw-field <key=value>', description: 'a typed field: true, false, null, numbers, JSON, @file (repeatable)', parse: pair },
    { flags: '-H, --header <name:value>', description: 'an extra request header (repeatable)', parse: headerPair },
    { flags: '--input <file>', description: 'the request body from a file, or - for stdin' },
    { flags: '--paginate', description: 'follow pagination_token / has_more cursors; one JSON page per line' },
    { flags: '-i, --include', description: 'print the status line and headers on stderr' },
  ],
  examples: ['svc api GET /v1/models', 'svc api POST /v1/tokenize-text -f text="hello" -f model=svc-4', 'svc api GET /v1/files -F limit=10 --paginate', 'svc api POST /v1/chat/completions --input body.json'],
  async run(ctx, [rawMethod, path], opts) {
    const method = rawMethod.toUpperCase();
    if (!(METHODS as readonly string[]).includes(method)) fail('METHOD', rawMethod, METHODS.join(', '));
    if (!/^(\/|https?:\/\/)/.test(path)) fail('PATH', path, 'a path starting with / (e.g. /v1/models)');
    const fields: Record<string, unknown> = {};
    for (const [k, v] of opts.field ?? []) setPath(fields, k, v);
    for (const [k, v] of opts.rawField ?? []) setPath(fields, k, typedValue(v));
    const hasFields = Object.keys(fields).length > 0;
    if (opts.input && hasFields && method !== 'GET') throw new UsageError('--input: not together with body fields (-f/-F)');
    const inQuery = method === 'GET' || method === 'DELETE' || method === 'HEAD';
    let query: Query = {};
    if (inQuery) for (const [k, v] of Object.entries(fields)) query[k] = Array.isArray(v) ? (v as (string | number)[]) : typeof v === 'object' && v !== null ? JSON.stringify(v) : (v as string);
    let body: string | Buffer | undefined;
    if (opts.input) body = opts.input === '-' ? Buffer.from(await ctx.readStdin()) : readFileSync(opts.input);
    const headers: Record<string, string> = Object.fromEntries(opts.header ?? []);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    const http = await ctx.http();
    for (;;) {
      const res = await http.request({ method, path, query, headers, json: !inQuery && hasFields ? fields : undefined, body, okStatuses: [202] });
      if (opts.include) {
        ctx.out.stderrWrite(`HTTP ${res.status}\n`);
        for (const [k, v] of Object.entries(res.headers)) ctx.out.stderrWrite(`${k}: ${String(v)}\n`);
        ctx.out.stderrWrite('\n');
      }
      const type = String(res.headers['content-type'] ?? '');
      if (!type.includes('json')) {
        // Raw bytes (file contents, audio): stream them through untouched.
        for await (const chunk of res.body) ctx.out.write(chunk as Buffer);
        return 0;
      }
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      if (parsed === undefined) ctx.out.write(text);
      else if (opts.paginate || !ctx.out.stdoutIsTTY) ctx.out.line(JSON.stringify(parsed));
      else ctx.out.printJson(parsed);
      if (!opts.paginate || method !== 'GET') return 0;
      const next = nextCursor(parsed, query);
      if (!next) return 0;
      query = next;
    }
  },
});
