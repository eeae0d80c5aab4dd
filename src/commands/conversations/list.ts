import { ConversationStore } from '../../store/conversations.js';
import { defineCommand } from '../../cmdutil/command.js';
import { formatUnixTime } from '../../term/output.js';
import { integer } from '../../core/validate.js';

export default defineCommand({
  description:
    'Conversations of `svc chat` and `svc messages` (each continued by its own command with -c or ' +
    '--conversation ID; the COMMAND column says which), newest first, of the current profile unless ' +
    '--all-profiles. --json: one summary per line.',
  options: [
    { flags: '--limit <n>', description: 'at most this many (1-1000)', parse: integer({ min: 1, max: 1000 }) },
    { flags: '--all-profiles', description: 'conversations of every profile' },
  ],
  examples: ['svc conversations list', 'svc conversations list --json | jq -r .id'],
  async run(ctx, _args, opts) {
    const store = new ConversationStore(ctx.env);
    const profile = ctx.config().profile;
    const last = new Set([store.lastId(profile), store.lastId(profile, 'messages')]);
    let rows = store.list();
    if (!opts.allProfiles) rows = rows.filter((r) => r.profile === profile);
    if (opts.limit) rows = rows.slice(0, opts.limit);
    if (ctx.out.json) {
      for (const r of rows) ctx.out.printJsonLine(r);
      return 0;
    }
    await ctx.out.table(
      rows,
      [
        { header: 'ID', get: (r) => (ctx.out.stdoutIsTTY && last.has(r.id) ? `${r.id} *` : r.id) },
        { header: 'UPDATED', get: (r) => formatUnixTime(r.updated_at) },
        { header: 'MODEL', get: (r) => r.model },
        { header: 'TURNS', get: (r) => r.turns, align: 'right' },
        { header: 'TITLE', get: (r) => r.title },
        { header: 'COMMAND', get: (r) => r.command },
      ],
      { emptyMessage: 'no conversations yet: `svc chat "…"` starts one' },
    );
    return 0;
  },
});
