import { RETRIEVAL_MODES, type SearchMatch, type SearchRequest, searchDocuments } from '../../endpoints/documents.js';
import { defineCommand } from '../../cmdutil/command.js';
import { fillBody, type RequestTable } from '../../core/request-table.js';
import { integer, oneOf, repeatable, require } from '../../core/validate.js';

/** The spec gives a default (10) but no maximum; 100 is this client's (and the emulator's) bound. */
export const MAX_LIMIT = 100;

export const SEARCH_TABLE = {
  operation: 'POST /v1/documents/search',
  rows: [
    {
      flags: '--collection <id>',
      description: 'collection to search (repeatable; at least one)',
      parse: repeatable(),
      field: 'source.collection_ids',
    },
    { flags: '--filter <expr>', description: 'metadata filter (=, !=, >, >=, <, <=, AND, OR, NOT)', field: 'filter' },
    {
      flags: '--limit <n>',
      description: `matches to return (1-${MAX_LIMIT}, default 10)`,
      parse: integer({ min: 1, max: MAX_LIMIT }),
      field: 'limit',
    },
    {
      flags: '--mode <mode>',
      description: `retrieval mode: ${RETRIEVAL_MODES.join(', ')} (default hybrid)`,
      parse: oneOf(RETRIEVAL_MODES),
      choices: RETRIEVAL_MODES,
      field: 'retrieval_mode',
      send: (v?: string) => (v ? { type: v } : undefined),
    },
  ],
  inputs: { query: 'QUERY' },
} as const satisfies RequestTable;

export default defineCommand({
  description:
    "Ranks the chunks of the collections' documents against QUERY. Prints rank, score, file id, file name " +
    'and a snippet (a table on a terminal, tab-separated in a pipe); --json prints each match as the API ' +
    'sent it, one per line. --filter is an expression over document metadata, e.g. `year > 2020 AND author = ' +
    '"ann"`.',
  args: [
    {
      name: 'query',
      description: 'what to look for (several words are joined with spaces)',
      required: true,
      variadic: true,
    },
  ],
  options: SEARCH_TABLE.rows,
  requests: [SEARCH_TABLE],
  examples: [
    'svc documents search "refund policy" --collection handbook',
    'svc documents search "q3 revenue" --collection reports --filter \'year >= 2024\' --mode keyword --limit 3',
  ],
  async run(ctx, [words], opts) {
    const query = (words as string[]).join(' ');
    require(!!opts.collection?.length, '--collection', '(none)', 'at least one collection id');
    require(query.trim() !== '', 'QUERY', JSON.stringify(query), 'a non-empty query');
    require(opts.filter === undefined || opts.filter.trim() !== '', '--filter', JSON.stringify(
      opts.filter,
    ), 'a non-empty expression');
    const body = fillBody(SEARCH_TABLE.rows, opts, { query } as SearchRequest);
    const { matches } = await searchDocuments(await ctx.http(), body, ctx.signal);
    if (ctx.out.json) {
      for (const m of matches) ctx.out.printJsonLine(m);
      return 0;
    }
    const width = ctx.out.stdoutIsTTY ? Math.max(30, (ctx.streams.stdout.columns ?? 120) - 70) : 200;
    await ctx.out.table(
      matches.map((m, i) => ({ m, rank: i + 1 })),
      [
        { header: '#', get: (r) => r.rank, align: 'right' },
        { header: 'SCORE', get: (r) => r.m.score.toFixed(4), align: 'right' },
        { header: 'FILE', get: (r) => r.m.file_id, keep: true },
        { header: 'NAME', get: (r) => r.m.fields?.file_name ?? r.m.fields?.name ?? '' },
        { header: 'SNIPPET', get: (r) => snippet(r.m, query, width) },
      ],
      { emptyMessage: 'no matches' },
    );
    return 0;
  },
});

/** The part of the chunk around the first query word it contains, on one line. */
export function snippet(m: SearchMatch, query: string, width: number): string {
  const text = m.chunk_content.replace(/\s+/g, ' ').trim();
  const lower = text.toLowerCase();
  const word = (query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).find((w) => lower.includes(w));
  let start = word ? Math.max(0, lower.indexOf(word) - Math.floor(width / 4)) : 0;
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space > 0 && space - start < 15) start = space + 1;
  }
  const body = text.slice(start, start + width);
  return `${start > 0 ? '…' : ''}${body}${start + width < text.length ? '…' : ''}`;
}
