import { defineCommand } from '../../core/command.js';
import { integer, oneOf } from '../../core/validate.js';
import { formatUnixTime, type Column } from '../../core/output.js';
import { listSkills, type Skill } from '../../api/skills.js';

const ORDERS = ['asc', 'desc'] as const;

interface Opts {
  limit?: number;
  order?: (typeof ORDERS)[number];
  after?: string;
  all?: boolean;
}

const columns: Column<Skill>[] = [
  { header: 'ID', get: (s) => s.id },
  { header: 'NAME', get: (s) => s.name },
  { header: 'DESCRIPTION', get: (s) => s.description },
  { header: 'CREATED', get: (s) => formatUnixTime(s.created_at) },
];

export default defineCommand<Opts>({
  summary: 'List skills',
  description: 'One page by default (--after continues from an id), every page with --all.',
  options: [
    { flags: '--limit <n>', description: 'skills per page (1-100, default 100)', parse: integer({ min: 1, max: 100 }) },
    { flags: '--order <order>', description: 'asc or desc (default desc)', parse: oneOf(ORDERS), choices: ORDERS },
    { flags: '--after <id>', description: 'start after this skill id (the last_id of the previous page)' },
    { flags: '--all', description: 'follow the pages until has_more is false' },
  ],
  examples: ['svc skills list', 'svc skills list --all --order asc --json'],
  async run(ctx, _args, opts) {
    const http = await ctx.http();
    const tty = ctx.out.stdoutIsTTY && !ctx.out.json;
    const collected: Skill[] = [];
    let after = opts.after;
    const seen = new Set<string>();
    for (;;) {
      const page = await listSkills(http, { limit: opts.limit, order: opts.order, after });
      if (ctx.out.json) for (const s of page.data) ctx.out.printJsonLine(s);
      else if (tty) collected.push(...page.data);
      else await ctx.out.table(page.data, columns);
      const end = !page.has_more || !page.last_id || page.data.length === 0 || seen.has(page.last_id);
      if (!opts.all) {
        if (!end && !ctx.out.json) ctx.out.info(`more skills: --after ${page.last_id} (or --all)`);
        break;
      }
      if (end) break;
      seen.add(page.last_id!);
      after = page.last_id!;
    }
    if (tty) await ctx.out.table(collected, columns, { emptyMessage: 'no skills' });
    return 0;
  },
});
