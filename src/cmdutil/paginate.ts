// The one paginator of every list (after openai-node's pages): a Page knows, from the API's own cursor rule (said
// once per resource, in endpoints/resources.ts), the query of the page after it; pages() walks them with a guard
// against a repeated cursor; listRows() prints the rows as pages arrive under the one output contract
// (docs/scripting.md): --json is one row per line, then — when another page exists and --all was not given — one
// final cursor record {"next_page_token": "…"}.
import type { Column } from '../term/output.js';
import type { Context } from '../runtime/context.js';
import type { Query } from '../net/http.js';
import type { CursorRule, ListEndpoint, PageSize } from '../net/paging.js';
import { ProtocolError, UsageError } from '../core/errors.js';
import { type FlagParser, integer } from '../core/validate.js';

export interface ListSource<_Item> {
  /** fetch one page; the reply as the API sent it (checked by the api layer) */
  fetch(query: Query): Promise<object>;
  /** the key of the rows in the reply (`data`, `voices`, `phone_numbers`, `agents`); detect: the first array */
  itemsKey?: string;
  cursor: CursorRule;
}

/** The query parameter that carries the cursor for a rule (`after` or `pagination_token`). */
export function cursorParam(rule: CursorRule): 'after' | 'pagination_token' | undefined {
  if (rule.kind === 'after') return 'after';
  if (rule.kind === 'token') return 'pagination_token';
  return undefined;
}

export class Page<Item> {
  constructor(
    readonly source: ListSource<Item>,
    /** the query that fetched this page */
    readonly query: Query,
    /** the reply as the API sent it */
    readonly body: Record<string, unknown>,
  ) {}

  get items(): Item[] {
    const key = this.source.itemsKey;
    const list = key ? this.body[key] : Object.values(this.body).find(Array.isArray);
    return Array.isArray(list) ? (list as Item[]) : [];
  }

  /** The cursor of the next page (what `--page-token` takes), or undefined on the last page. */
  nextCursor(): string | undefined {
    return this.nextPageParams()?.cursor;
  }

  /** The query of the next page, or undefined on the last page. */
  nextPageQuery(): Query | undefined {
    const next = this.nextPageParams();
    return next && { ...this.query, [next.param]: next.cursor };
  }

  private nextPageParams(): { param: string; cursor: string } | undefined {
    const items = this.items;
    if (items.length === 0) return undefined;
    let rule = this.source.cursor;
    const body = this.body;
    if (rule.kind === 'detect') {
      if (typeof body.has_more === 'boolean') rule = { kind: 'after' };
      else if (typeof body.pagination_token === 'string') {
        const limit = Number(this.query.limit ?? 0);
        rule = { kind: 'token', shortPageEnds: limit ? { defaultLimit: limit } : undefined };
      } else return undefined;
    }
    if (rule.kind === 'none' || rule.kind === 'whole') return undefined;
    if (rule.kind === 'after') {
      if (body.has_more !== true) return undefined;
      const last =
        typeof body.last_id === 'string' && body.last_id
          ? body.last_id
          : (items[items.length - 1] as Record<string, unknown> | undefined)?.[rule.idKey ?? 'id'];
      return typeof last === 'string' && last ? { param: 'after', cursor: last } : undefined;
    }
    const token = body.pagination_token;
    if (typeof token !== 'string' || token === '') return undefined;
    if (rule.shortPageEnds) {
      const limit = Number(this.query.limit ?? rule.shortPageEnds.defaultLimit);
      if (items.length < limit) return undefined;
    }
    return { param: 'pagination_token', cursor: token };
  }
}

/** Fetch the first page only. */
export async function firstPage<Item>(source: ListSource<Item>, query: Query): Promise<Page<Item>> {
  return new Page(source, query, (await source.fetch(query)) as Record<string, unknown>);
}

/**
 * Every page from `query` on, each fetched when the previous one has been consumed (rows stream as they arrive).
 * A cursor seen before would loop for ever: that is a protocol error (exit 1), raised after the rows already printed.
 */
export async function* pages<Item>(source: ListSource<Item>, query: Query): AsyncGenerator<Page<Item>> {
  const param = cursorParam(source.cursor);
  const seen = new Set<string>();
  const start = param ? query[param] : undefined;
  if (typeof start === 'string') seen.add(start);
  let q: Query | undefined = query;
  while (q) {
    const page: Page<Item> = await firstPage(source, q);
    yield page;
    const cursor = page.nextCursor();
    if (cursor === undefined) return;
    if (seen.has(cursor))
      throw new ProtocolError(
        `the API sent the page cursor ${JSON.stringify(cursor)} a second time; stopped so as not to loop`,
        undefined,
      );
    seen.add(cursor);
    q = page.nextPageQuery();
  }
}

/** Every row of every page (an async iterator across pages). */
export async function* rows<Item>(source: ListSource<Item>, query: Query): AsyncGenerator<Item> {
  for await (const page of pages(source, query)) yield* page.items;
}

/** A list that takes `--limit`: what its page flags are made from. */
type PagedList = ListEndpoint & { pageSize: PageSize };

export interface PageOpts {
  limit?: number;
  all?: boolean;
  pageToken?: string;
  after?: string;
}

/**
 * The flags of a list: --limit, --all, and --page-token (plus --after where the endpoint takes an item id: `after`
 * is its help, the flag sent as the API's `after` parameter).
 */
/** The page flags a list may take (which of them: its cursor rule); each typed for `run`'s opts (OptionValues). */
type PageFlag =
  | { flags: '--limit <n>'; description: string; parse: FlagParser<number> }
  | { flags: '--all'; description: string }
  | { flags: '--page-token <cursor>'; description: string }
  | { flags: '--after <id>'; description: string };

export function pageFlags(list: PagedList, after?: string): PageFlag[] {
  const { noun, cursor, pageSize: size } = list;
  const range = size.max ? `${size.min ?? 1}-${size.max}` : `at least ${size.min ?? 1}`;
  const clamped = size.clampedAt ? `; at most ${size.clampedAt} per page` : '';
  const flags: PageFlag[] = [
    {
      flags: '--limit <n>',
      description: `${noun} per page (${range}, default ${size.default})${clamped}`,
      parse: integer({ min: size.min ?? 1, max: size.max }),
    },
  ];
  if (cursor.kind === 'none') {
    flags.push({
      flags: '--all',
      description: `as many ${noun} as the API gives in one reply (${cursor.max}); the API has no cursor`,
    });
    return flags;
  }
  flags.push(
    {
      flags: '--page-token <cursor>',
      description: 'the page after this cursor (the next_page_token of a previous page)',
    },
    { flags: '--all', description: 'every page, rows printed as each page arrives' },
  );
  if (after) flags.push({ flags: '--after <id>', description: after });
  return flags;
}

/** The query of the first page from the page flags (the endpoint's own parameters added by the caller). */
export function firstPageQuery(list: ListEndpoint, opts: PageOpts, flags: { after?: boolean } = {}): Query {
  const { cursor } = list;
  if (opts.pageToken !== undefined && opts.after !== undefined)
    throw new UsageError('--page-token and --after: give one of them (both say where the page starts)');
  if (opts.pageToken === '') throw new UsageError('--page-token: an empty cursor; omit the flag for the first page');
  const query: Query = {};
  if (opts.limit !== undefined) query.limit = opts.limit;
  else if (opts.all && cursor.kind === 'none') query.limit = cursor.max;
  const param = cursorParam(cursor);
  if (param && opts.pageToken !== undefined) query[param] = opts.pageToken;
  if (opts.after !== undefined && flags.after !== false) query.after = opts.after;
  return query;
}

export interface ListOutput<Item> {
  columns: (tty: boolean) => Column<Item>[];
  emptyMessage?: string;
  /** the id the list belongs to (the response whose input items are listed) */
  under?: string;
}

/**
 * Print a list under the one contract: --json one row per line as the API sent it, then the cursor record when
 * another page exists and --all was not given; in a pipe tab-separated rows as pages arrive; on a terminal one table,
 * and the next cursor as a note on stderr.
 */
export async function listRows<Item>(
  ctx: Context,
  list: ListEndpoint,
  query: Query,
  opts: { all?: boolean },
  out: ListOutput<Item>,
): Promise<number> {
  const http = await ctx.http();
  const source: ListSource<Item> = {
    fetch: (q) => list.list(http, q, out.under),
    itemsKey: list.itemsKey,
    cursor: list.cursor,
  };
  const tty = ctx.out.stdoutIsTTY && !ctx.out.json;
  const collected: Item[] = [];
  let next: string | undefined;
  let count = 0;
  const walk = opts.all
    ? pages(source, query)
    : (async function* () {
        yield await firstPage(source, query);
      })();
  for await (const page of walk) {
    const items = page.items;
    count += items.length;
    if (ctx.out.json) for (const row of items) ctx.out.printJsonLine(row);
    else if (tty) collected.push(...items);
    else await ctx.out.table(items, out.columns(false));
    if (!opts.all) next = page.nextCursor();
  }
  if (tty) await ctx.out.table(collected, out.columns(true), { emptyMessage: out.emptyMessage ?? `no ${list.noun}` });
  if (next !== undefined) {
    // --jq sees rows only: the cursor record would come out of the filter as one more (null) value
    if (ctx.out.json && !ctx.out.filtered) ctx.out.printJsonLine({ next_page_token: next }, { record: true });
    else ctx.out.info(`more ${list.noun}: --page-token ${next} (or --all)`);
  }
  if (list.cursor.kind === 'none' && count >= Number(query.limit ?? Infinity)) {
    const max = list.cursor.max;
    const more = Number(query.limit) < max ? `: --all asks for up to ${max}` : '';
    ctx.out.info(
      `note: ${count} ${list.noun}, as many as --limit ${query.limit} asks for; the API has no cursor${more}`,
    );
  }
  return 0;
}
