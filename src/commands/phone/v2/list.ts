import { defineCommand } from '../../../cmdutil/command.js';
import { firstPageQuery, listRows, pageFlags } from '../../../cmdutil/paginate.js';
import type { PhoneNumber } from '../../../endpoints/phone.js';
import { PHONE_NUMBERS_V2 } from '../../../endpoints/resources.js';

export default defineCommand({
  jsonFields: PHONE_NUMBERS_V2.fields,
  description:
    'One page by default; --page-token continues from the next_page_token of a previous page, --all prints ' +
    'every page as it arrives. The page size is at most 100 (a larger --limit is clamped, with a note).',
  options: [
    ...pageFlags(PHONE_NUMBERS_V2),
    { flags: '--agent <id>', description: 'only numbers routed to this agent' },
  ],
  examples: ['svc phone v2 list', 'svc phone v2 list --agent agent_123 --all --json'],
  async run(ctx, _args, opts) {
    const max = PHONE_NUMBERS_V2.pageSize.clampedAt;
    if (opts.limit !== undefined && opts.limit > max) {
      const rest = opts.all ? '' : ' (add --all for every page)';
      ctx.out.info(`note: --limit ${opts.limit} is above the page size maximum; using ${max} per page${rest}`);
      opts.limit = max;
    }
    const query = { ...firstPageQuery(PHONE_NUMBERS_V2, opts), agent_id: opts.agent };
    return listRows<PhoneNumber>(ctx, PHONE_NUMBERS_V2, query, opts, {
      columns: () => [
        { header: 'ID', get: (n) => n.phone_number_id },
        { header: 'NUMBER', get: (n) => n.phone_number, keep: true },
        { header: 'NAME', get: (n) => n.name },
        { header: 'ORIGIN', get: (n) => n.origin },
        { header: 'AGENT', get: (n) => n.agent_id ?? '', keep: true },
      ],
    });
  },
});
