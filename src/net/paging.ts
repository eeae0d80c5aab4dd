// How a list endpoint of the API pages, as data: the cursor rule its replies follow and the page sizes it takes.
// Each resource's descriptor says it once (endpoints/resources.ts); the one paginator (cmdutil/paginate.ts) reads it.
import type { HttpClient, Query } from './http.js';

/** How an endpoint says where the next page starts. */
export type CursorRule =
  /**
   * `pagination_token` in the reply, sent back as `pagination_token`. With `shortPageEnds` (files) the reply always
   * carries a token and a page shorter than the limit (default `defaultLimit`) is the last; otherwise the token is
   * absent on the last page.
   */
  | { kind: 'token'; shortPageEnds?: { defaultLimit: number } }
  /** `has_more` and `last_id` in the reply (the last row's `idKey` when absent), sent back as `after` */
  | { kind: 'after'; idKey?: string }
  /** no cursor in the API: one page of at most `max` rows (agents, v1 phone numbers) */
  | { kind: 'none'; max: number }
  /** no paging at all: the whole list in one reply, no `limit` either (models, voices) */
  | { kind: 'whole' }
  /** `svc api --paginate`: whichever of the two cursors the reply carries */
  | { kind: 'detect' };

/** What `--limit` takes: the API's range and its default page size. */
export interface PageSize {
  min?: number;
  max?: number;
  default: number;
  /** a larger `--limit` is not refused but sent as this, with a note (v2 phone numbers) */
  clampedAt?: number;
}

/** A list endpoint of the API. */
export interface ListEndpoint {
  /** what a row is called in help and notes (`files`, `phone numbers`) */
  noun: string;
  /**
   * One page: the reply as the API sent it (checked by the endpoint function). `under`: the id the list belongs to
   * (the response whose input items are listed).
   */
  list(http: HttpClient, query: Query, under?: string): Promise<object>;
  /** the key of the rows in the reply (`data`, `voices`, `phone_numbers`, `agents`) */
  itemsKey: string;
  cursor: CursorRule;
  /** absent where the API takes no `limit` (a list sent whole) */
  pageSize?: PageSize;
}
