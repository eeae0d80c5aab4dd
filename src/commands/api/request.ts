import { readInputBytes, readInputText, utf8Text } from '../../core/input-file.js';
import { readFileSync } from 'node:fs';
import { defineCommand } from '../../cmdutil/command.js';
import { ProtocolError, UsageError } from '../../core/errors.js';
import { pages, type ListSource } from '../../cmdutil/paginate.js';
import { fail, oneOf, repeatable } from '../../core/validate.js';
import type { HttpResponse, Query } from '../../net/http.js';
import type { Context } from '../../runtime/context.js';

/** the typed field flag, as errors name it */
const FIELD = '-F/--field';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

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
  if (/^authorization$/i.test(name))
    fail(flag, name, 'any header but Authorization (the key comes from the configuration)');
  return [name, raw.slice(i + 1).trim()];
});

/**
 * -F/--field values, as gh's: true/false/null, numbers, @file (its text; @- stdin), JSON arrays/objects; anything
 * else a string.
 */
export function typedValue(raw: string): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(raw)) return Number(raw);
  if (raw.startsWith('@')) {
    const path = raw.slice(1);
    const text = path === '-' ? utf8Text(readFileSync(0), 'stdin (-F/--field @-)') : readInputText(FIELD, path);
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

export default defineCommand({
  description:
    'PATH as in the API reference (below the base URL, e.g. /v1/models), or a full URL: the API key is sent ' +
    "only to the base URL's origin (scheme, host and port), another origin is refused (exit 2) unless --no-auth " +
    'asks for the request without the key; plain http:// only to loopback (SVC_ALLOW_INSECURE_HTTP=1 to allow). ' +
    'The method is GET, or POST when ' +
    'fields or --input are given (GET with --paginate), as in `gh api`; name another with -X or as the first ' +
    'word (`svc api DELETE /v1/files/ID`). Fields become the JSON body (query parameters for ' +
    'GET/DELETE/HEAD). The reply body is printed as sent (JSON pretty on a terminal). --paginate follows the ' +
    "API's cursors (has_more/last_id or pagination_token) and prints one page per line; --slurp gathers them " +
    'into one array. Errors map to the usual exit codes.',
  args: [
    {
      name: 'method-or-path',
      description: `the path (e.g. /v1/models), or a method (${METHODS.join(', ')}) followed by the path`,
      required: true,
    },
    { name: 'path', description: 'the path, when a method comes first' },
  ],
  options: [
    {
      flags: '-X, --method <method>',
      description: `the HTTP method (${METHODS.join(', ')}); default GET, or POST with fields or --input`,
      parse: oneOf(METHODS, { caseInsensitive: true }),
    },
    // as in gh: -f/--raw-field a string as given, -F/--field typed
    {
      flags: '-f, --raw-field <key=value>',
      description: 'a string field, sent as given (repeatable; a.b and a[] nest)',
      parse: pair,
    },
    {
      flags: '-F, --field <key=value>',
      description: 'a typed field: true, false, null, numbers, JSON, @file (its text), @- (stdin) (repeatable)',
      parse: pair,
    },
    { flags: '-H, --header <name:value>', description: 'an extra request header (repeatable)', parse: headerPair },
    { flags: '--input <file>', description: 'the request body from a file, or - for stdin' },
    {
      flags: '--paginate',
      description: 'follow the cursors to the last page (GET only); one JSON page per line as the API sent it',
    },
    { flags: '--slurp', description: 'with --paginate: print every page in one JSON array' },
    { flags: '-i, --include', description: 'print the status line and headers on stderr' },
    {
      flags: '--no-auth',
      description: "send no API key: needed for a URL on another origin than the base URL's (the key goes only there)",
    },
  ],
  examples: [
    'svc api /v1/models',
    "svc api /v1/models --jq '.data[].id'",
    'svc api /v1/tokenize-text -f text="hello" -f model=svc-4',
    "svc api /v1/files -F limit=10 --paginate --slurp --jq '[.[].data[]] | length'",
    'svc api -X DELETE /v1/files/file_123',
    'svc api /v1/chat/completions --input body.json',
    'svc api --no-auth https://status.example.com/health',
  ],
  async run(ctx, [first, second], opts) {
    let { method, path } = methodAndPath(first, second, opts.method);
    if (!/^(\/|https?:\/\/)/.test(path)) fail('PATH', path, 'a path starting with / (e.g. /v1/models)');
    if (opts.slurp && !opts.paginate) throw new UsageError('--slurp: only with --paginate');
    const fields: Record<string, unknown> = {};
    for (const [k, v] of opts.rawField ?? []) setPath(fields, k, v);
    for (const [k, v] of opts.field ?? []) setPath(fields, k, typedValue(v));
    const hasFields = Object.keys(fields).length > 0;
    method ??= (hasFields || opts.input) && !opts.paginate ? 'POST' : 'GET';
    if (opts.paginate && method !== 'GET') throw new UsageError(`--paginate: only for GET (the method is ${method})`);
    if (opts.input && hasFields && method !== 'GET')
      throw new UsageError('--input: not together with body fields (-f/-F)');
    const inQuery = method === 'GET' || method === 'DELETE' || method === 'HEAD';
    const query: Query = inQuery ? queryOf(fields) : {};
    let body: string | Buffer | undefined;
    if (opts.input) body = opts.input === '-' ? await ctx.readStdinBytes() : readInputBytes('--input', opts.input);
    const headers: Record<string, string> = Object.fromEntries(opts.header ?? []);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
    const http = await ctx.http({ requireKey: opts.auth !== false });
    const send = async (q: Query) => {
      const res = await http.request({
        method: method!,
        path,
        query: q,
        headers,
        json: !inQuery && hasFields ? fields : undefined,
        body,
        okStatuses: [202],
        // the key goes only to the base URL's origin; another one is refused unless asked for without it (net/origin)
        auth: opts.auth,
      });
      if (opts.include) {
        ctx.out.stderrWrite(`HTTP ${res.status}\n`);
        for (const [k, v] of Object.entries(res.headers)) ctx.out.stderrWrite(`${k}: ${String(v)}\n`);
        ctx.out.stderrWrite('\n');
      }
      return res;
    };
    if (opts.paginate) await printPages(ctx, send, query, !!opts.slurp);
    else await printReply(ctx, await send(query));
    return 0;
  },
});

/** The method (-X, or a method word before the path; undefined when neither is given) and the path. */
function methodAndPath(
  first: string,
  second: string | undefined,
  flag: string | undefined,
): { method: string | undefined; path: string } {
  let method: string | undefined = flag?.toUpperCase();
  let path: string = first;
  if (second !== undefined) {
    if (!(METHODS as readonly string[]).includes(first.toUpperCase())) fail('METHOD', first, METHODS.join(', '));
    if (method && method !== first.toUpperCase())
      throw new UsageError(`--method ${method} and the method word ${first}: give one of them`);
    method = first.toUpperCase();
    path = second;
  }
  return { method, path };
}

/** Fields as query parameters: lists repeated, objects as JSON. */
function queryOf(fields: Record<string, unknown>): Query {
  const query: Query = {};
  for (const [k, v] of Object.entries(fields))
    query[k] = Array.isArray(v)
      ? (v as (string | number)[])
      : typeof v === 'object' && v !== null
        ? JSON.stringify(v)
        : (v as string);
  return query;
}

/** --paginate: every page, one JSON line each, or (--slurp) all in one array. */
async function printPages(
  ctx: Context,
  send: (q: Query) => Promise<HttpResponse>,
  query: Query,
  slurp: boolean,
): Promise<void> {
  const source: ListSource<unknown> = {
    cursor: { kind: 'detect' },
    fetch: async (q) => {
      const page = await (await send(q)).json<unknown>();
      if (!page || typeof page !== 'object' || Array.isArray(page))
        throw new ProtocolError('--paginate: the reply is not a JSON object, so it has no cursor to follow');
      return page;
    },
  };
  const slurped: unknown[] = [];
  for await (const page of pages(source, query)) {
    if (slurp) slurped.push(page.body);
    else ctx.out.printJsonLine(page.body);
  }
  if (slurp) ctx.out.printJson(slurped);
}

/** The reply's body as sent: JSON printed as JSON, anything else (files, audio) streamed through untouched. */
async function printReply(ctx: Context, res: HttpResponse): Promise<void> {
  const type = String(res.headers['content-type'] ?? '');
  const notJson = () =>
    new ProtocolError(`--jq: the reply is ${type || 'of no content type'}, not JSON: there is nothing to filter`);
  if (ctx.out.filtered && !type.includes('json')) throw notJson();
  if (!type.includes('json')) {
    // Raw bytes (file contents, audio): stream them through untouched.
    for await (const chunk of res.body) ctx.out.write(chunk as Buffer);
    return;
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined && ctx.out.filtered) throw notJson();
  if (parsed === undefined) ctx.out.write(text);
  else ctx.out.printJson(parsed);
}
