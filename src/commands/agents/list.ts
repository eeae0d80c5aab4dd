import { defineCommand } from '../../core/command.js';
import { integer } from '../../core/validate.js';
import { listAgents } from '../../api/agents.js';

export default defineCommand<{ limit?: number }>({
  summary: 'List the agents of the team',
  options: [{ flags: '--limit <n>', description: 'how many agents (1-1000, default 100)', parse: integer({ min: 1, max: 1000 }) }],
  examples: ['svc agents list', 'svc agents list --json | jq -r .agent_id'],
  async run(ctx, _args, opts) {
    const agents = await listAgents(await ctx.http(), opts.limit);
    if (ctx.out.json) {
      for (const a of agents) ctx.out.printJsonLine(a);
      return 0;
    }
    await ctx.out.table(
      agents,
      [
        { header: 'ID', get: (a) => a.agent_id },
        { header: 'NAME', get: (a) => a.name },
        { header: 'VOICE', get: (a) => (a.voice as { voice_id?: string } | null | undefined)?.voice_id ?? '' },
        { header: 'TOOLS', get: (a) => (Array.isArray(a.tools) ? a.tools.length : 0), align: 'right' },
        { header: 'UPDATED', get: (a) => a.updated_at ?? '' },
      ],
      { emptyMessage: 'no agents' },
    );
    return 0;
  },
});
