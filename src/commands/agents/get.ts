import { defineCommand } from '../../cmdutil/command.js';
import { getAgent } from '../../endpoints/agents.js';
import { printAgent } from './shared.js';

export default defineCommand({
  args: [{ name: 'id', description: 'agent id', required: true }],
  examples: ['svc agents get agent_123', 'svc agents get agent_123 --json'],
  async run(ctx, [id]) {
    const agent = await getAgent(await ctx.http(), id);
    if (ctx.out.json) ctx.out.printJson(agent);
    else printAgent(ctx.out, agent);
    return 0;
  },
});
