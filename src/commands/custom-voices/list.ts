import { defineCommand } from '../../cmdutil/command.js';
import { firstPageQuery, listRows, pageFlags, type CursorRule, type PageOpts } from '../../cmdutil/paginate.js';
import { CUSTOM_VOICE_LIMITS, listCustomVoicesPage, type CustomVoice } from '../../endpoints/custom-voices.js';

const CURSOR: CursorRule = { kind: 'token' };

export default defineCommand<PageOpts>({
  description:
    'One page by default; --page-token continues from the next_page_token of a previous page, --all prints every page as it arrives.',
  options: pageFlags({
    noun: 'voices',
    cursor: CURSOR,
    limit: { min: CUSTOM_VOICE_LIMITS.listLimit[0], max: CUSTOM_VOICE_LIMITS.listLimit[1], default: 100 },
  }),
  examples: ['svc custom-voices list', 'svc custom-voices list --all --json'],
  async run(ctx, _args, opts) {
    const query = firstPageQuery(CURSOR, opts);
    const http = await ctx.http();
    return listRows<CustomVoice>(
      ctx,
      { fetch: (q) => listCustomVoicesPage(http, q), itemsKey: 'voices', cursor: CURSOR },
      query,
      opts,
      {
        noun: 'custom voices',
        columns: () => [
          { header: 'VOICE', get: (v) => v.voice_id, keep: true },
          { header: 'NAME', get: (v) => v.name ?? '' },
          { header: 'CREATED', get: (v) => v.created_at ?? '' },
        ],
      },
    );
  },
});
