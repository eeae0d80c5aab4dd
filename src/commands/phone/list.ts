import { defineCommand } from '../../cmdutil/command.js';
import { firstPageQuery, listRows, pageFlags, type CursorRule, type PageOpts } from '../../cmdutil/paginate.js';
import { PHONE_LIMITS, listNumbers, type PhoneNumber } from '../../endpoints/phone.js';

/** The v1 list has no cursor: one reply of at most 1000 numbers. */
const CURSOR: CursorRule = { kind: 'none', max: PHONE_LIMITS.listLimit[1] };

export default defineCommand<PageOpts>({
  description:
    'The v1 list has no cursor: one reply of --limit numbers (default 100); --all asks for the most one reply holds (1000).',
  options: pageFlags({
    noun: 'numbers',
    cursor: CURSOR,
    limit: { min: PHONE_LIMITS.listLimit[0], max: PHONE_LIMITS.listLimit[1], default: 100 },
  }),
  examples: ['svc phone list', 'svc phone list --json'],
  async run(ctx, _args, opts) {
    const query = firstPageQuery(CURSOR, opts);
    const http = await ctx.http();
    return listRows<PhoneNumber>(
      ctx,
      { fetch: (q) => listNumbers(http, q.limit as number | undefined), itemsKey: 'phone_numbers', cursor: CURSOR },
      query,
      opts,
      {
        noun: 'phone numbers',
        columns: () => [
          { header: 'ID', get: (n) => n.phone_number_id },
          { header: 'NUMBER', get: (n) => n.phone_number, keep: true },
          { header: 'NAME', get: (n) => n.name },
          { header: 'AGENT', get: (n) => n.agent_id ?? '', keep: true },
        ],
      },
    );
  },
});
