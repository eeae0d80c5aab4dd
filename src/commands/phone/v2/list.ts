import { defineCommand } from '../../../cmdutil/command.js';
import { firstPageQuery, listRows, pageFlags, type CursorRule, type PageOpts } from '../../../cmdutil/paginate.js';
import { PHONE_LIMITS, listV2Page, type PhoneNumber } from '../../../endpoints/phone.js';

interface Opts extends PageOpts {
  agent?: string;
}

const CURSOR: CursorRule = { kind: 'token' };

export default defineCommand<Opts>({
  description:
    'One page by default; --page-token continues from the next_page_token of a previous page, --all prints every page as it arrives. The page size is at most 100 (a larger --limit is clamped, with a note).',
  options: [
    ...pageFlags({
      noun: 'numbers',
      cursor: CURSOR,
      limit: { default: 20, note: `at most ${PHONE_LIMITS.v2PageMax} per page` },
    }),
    { flags: '--agent <id>', description: 'only numbers routed to this agent' },
  ],
  examples: ['svc phone v2 list', 'svc phone v2 list --agent agent_123 --all --json'],
  async run(ctx, _args, opts) {
    if (opts.limit !== undefined && opts.limit > PHONE_LIMITS.v2PageMax) {
      ctx.out.info(
        `note: --limit ${opts.limit} is above the page size maximum; using ${PHONE_LIMITS.v2PageMax} per page${opts.all ? '' : ' (add --all for every page)'}`,
      );
      opts.limit = PHONE_LIMITS.v2PageMax;
    }
    const query = { ...firstPageQuery(CURSOR, opts), agent_id: opts.agent };
    const http = await ctx.http();
    return listRows<PhoneNumber>(
      ctx,
      { fetch: (q) => listV2Page(http, q), itemsKey: 'phone_numbers', cursor: CURSOR },
      query,
      opts,
      {
        noun: 'phone numbers',
        columns: () => [
          { header: 'ID', get: (n) => n.phone_number_id },
          { header: 'NUMBER', get: (n) => n.phone_number, keep: true },
          { header: 'NAME', get: (n) => n.name },
          { header: 'ORIGIN', get: (n) => n.origin },
          { header: 'AGENT', get: (n) => n.agent_id ?? '', keep: true },
        ],
      },
    );
  },
});
