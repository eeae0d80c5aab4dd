import { defineCommand } from '../../../core/command.js';
import { integer } from '../../../core/validate.js';
import { PHONE_LIMITS, listV2Page, type PhoneNumber } from '../../../api/phone.js';

interface Opts {
  limit?: number;
  agent?: string;
  all?: boolean;
  pageToken?: string;
}

export default defineCommand<Opts>({
  summary: 'List v2 phone numbers (one page, or --all)',
  description: 'The page size is at most 100 (a larger --limit is clamped, with a note). --all follows pagination_token to the last page.',
  options: [
    { flags: '--limit <n>', description: 'page size (default 20; at most 100 per page)', parse: integer({ min: 1 }) },
    { flags: '--agent <id>', description: 'only numbers routed to this agent' },
    { flags: '--all', description: 'every page' },
    { flags: '--page-token <token>', description: 'start after this token (from a previous page)' },
  ],
  examples: ['svc phone v2 list', 'svc phone v2 list --agent agent_123 --all --json'],
  async run(ctx, _args, opts) {
    let limit = opts.limit;
    if (limit !== undefined && limit > PHONE_LIMITS.v2PageMax) {
      ctx.out.info(`note: --limit ${limit} is above the page size maximum; using ${PHONE_LIMITS.v2PageMax} per page${opts.all ? '' : ' (add --all for every page)'}`);
      limit = PHONE_LIMITS.v2PageMax;
    }
    const http = await ctx.http();
    let token = opts.pageToken;
    const rows: PhoneNumber[] = [];
    for (;;) {
      const page = await listV2Page(http, { limit, pagination_token: token, agent_id: opts.agent });
      if (ctx.out.json) for (const n of page.phone_numbers) ctx.out.printJsonLine(n);
      else rows.push(...page.phone_numbers);
      token = page.pagination_token;
      if (!token || page.phone_numbers.length === 0) break;
      if (!opts.all) {
        ctx.out.info(`more numbers: add --all, or --page-token ${token} for the next page`);
        break;
      }
    }
    if (!ctx.out.json) {
      await ctx.out.table(
        rows,
        [
          { header: 'ID', get: (n) => n.phone_number_id },
          { header: 'NUMBER', get: (n) => n.phone_number },
          { header: 'NAME', get: (n) => n.name },
          { header: 'ORIGIN', get: (n) => n.origin },
          { header: 'AGENT', get: (n) => n.agent_id ?? '' },
        ],
        { emptyMessage: 'no phone numbers' },
      );
    }
    return 0;
  },
});
