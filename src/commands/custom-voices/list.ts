import { defineCommand } from '../../core/command.js';
import { integer } from '../../core/validate.js';
import { listCustomVoicesPage, type CustomVoice } from '../../api/custom-voices.js';

export default defineCommand<{ limit?: number; all?: boolean; pageToken?: string }>({
  summary: 'List the custom voices of the team',
  options: [
    { flags: '--limit <n>', description: 'page size (1-1000, default 100)', parse: integer({ min: 1, max: 1000 }) },
    { flags: '--all', description: 'every page (follows pagination_token)' },
    { flags: '--page-token <token>', description: 'the page after this token (from a previous list)' },
  ],
  examples: ['svc custom-voices list', 'svc custom-voices list --all --json'],
  async run(ctx, _args, opts) {
    const http = await ctx.http();
    const rows: CustomVoice[] = [];
    let token = opts.pageToken;
    for (;;) {
      const page = await listCustomVoicesPage(http, { limit: opts.limit, pagination_token: token });
      if (ctx.out.json) for (const v of page.voices) ctx.out.printJsonLine(v);
      else rows.push(...page.voices);
      token = page.pagination_token;
      if (!token || page.voices.length === 0) break;
      if (!opts.all) {
        ctx.out.info(`more voices: add --all, or --page-token ${token} for the next page`);
        break;
      }
    }
    if (!ctx.out.json) {
      await ctx.out.table(
        rows,
        [
          { header: 'VOICE', get: (v) => v.voice_id },
          { header: 'NAME', get: (v) => v.name ?? '' },
          { header: 'CREATED', get: (v) => v.created_at ?? '' },
        ],
        { emptyMessage: 'no custom voices' },
      );
    }
    return 0;
  },
});
