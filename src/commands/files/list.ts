import { defineCommand } from '../../core/command.js';
import { integer, oneOf } from '../../core/validate.js';
import { ORDERS, SORT_FIELDS, listFiles, type FileObject } from '../../api/files.js';
import { fileColumns } from './shared.js';

interface Opts {
  limit?: number;
  order?: (typeof ORDERS)[number];
  sortBy?: (typeof SORT_FIELDS)[number];
  filter?: string;
  pageToken?: string;
  all?: boolean;
}

export default defineCommand<Opts>({
  summary: 'List stored files',
  description:
    'One page by default (`--page-token` continues from a previous page), every page with --all. --filter takes an AIP-160 expression over name (or file_name, fuzzy with `:`), file_id, size_bytes, content_type, created_at, expires_at (RFC 3339), upload_status and user_defined_id, with = != > >= < <= :, AND, OR, NOT and parentheses.',
  options: [
    { flags: '--limit <n>', description: 'files per page (1-100, default 100)', parse: integer({ min: 1, max: 100 }) },
    { flags: '--order <order>', description: 'asc or desc (default desc)', parse: oneOf(ORDERS), choices: ORDERS },
    { flags: '--sort-by <field>', description: 'created_at (default), filename or size', parse: oneOf(SORT_FIELDS), choices: SORT_FIELDS },
    { flags: '--filter <expr>', description: 'AIP-160 filter, e.g. \'name:"report" AND size_bytes > 1000\'' },
    { flags: '--page-token <token>', description: 'continue from the pagination_token of a previous page' },
    { flags: '--all', description: 'follow pagination_token until the last page' },
  ],
  examples: ['svc files list', 'svc files list --all --sort-by size --order asc', 'svc files list --filter \'content_type = "pdf" AND NOT name:"draft"\''],
  async run(ctx, _args, opts) {
    const http = await ctx.http();
    const limit = opts.limit ?? 100;
    const tty = ctx.out.stdoutIsTTY && !ctx.out.json;
    const collected: FileObject[] = [];
    let token = opts.pageToken;
    const seen = new Set<string>();
    for (;;) {
      const page = await listFiles(http, { limit: opts.limit, order: opts.order, sort_by: opts.sortBy, filter: opts.filter, pagination_token: token });
      if (ctx.out.json) for (const f of page.data) ctx.out.printJsonLine(f);
      else if (tty) collected.push(...page.data);
      else await ctx.out.table(page.data, fileColumns(false));
      const next = page.pagination_token;
      const end = page.data.length < limit || !next || seen.has(next);
      if (!opts.all) {
        if (!end && !ctx.out.json) ctx.out.info(`more files: --page-token ${next} (or --all)`);
        break;
      }
      if (end) break;
      seen.add(next);
      token = next;
    }
    if (tty) await ctx.out.table(collected, fileColumns(true), { emptyMessage: 'no files' });
    return 0;
  },
});
