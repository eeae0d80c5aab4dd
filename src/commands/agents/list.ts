import { defineCommand } from '../../cmdutil/command.js';
import { firstPageQuery, listRows, pageFlags, type CursorRule, type PageOpts } from '../../cmdutil/paginate.js';
import { AGENT_LIMITS, listAgents, type Agent } from '../../endpoints/agents.js';

/** The agents list has no cursor: one reply of at most 1000 agents. */
const CURSOR: CursorRule = { kind: 'none', max: AGENT_LIMITS.listLimit[1] };

export default defineCommand<PageOpts>({
  description:
    'The API has no cursor for agents: one reply of --limit agents (default 100); --all asks for the most one reply holds (1000).',
  options: pageFlags({
    noun: 'agents',
    cursor: CURSOR,
    limit: { min: AGENT_LIMITS.listLimit[0], max: AGENT_LIMITS.listLimit[1], default: 100 },
  }),
  examples: ['svc agents list', 'svc agents list --json --jq .agent_id'],
  async run(ctx, _args, opts) {
    const query = firstPageQuery(CURSOR, opts);
    const http = await ctx.http();
    return listRows<Agent>(
      ctx,
      { fetch: (q) => listAgents(http, q.limit as number | undefined), itemsKey: 'agents', cursor: CURSOR },
      query,
      opts,
      {
        noun: 'agents',
        columns: () => [
          { header: 'ID', get: (a) => a.agent_id },
          { header: 'NAME', get: (a) => a.name },
          { header: 'VOICE', get: (a) => (a.voice as { voice_id?: string } | null | undefined)?.voice_id ?? '' },
          { header: 'TOOLS', get: (a) => (Array.isArray(a.tools) ? a.tools.length : 0), align: 'right' },
          { header: 'UPDATED', get: (a) => a.updated_at ?? '' },
        ],
      },
    );
  },
});
