import { defineCommand } from '../../cmdutil/command.js';
import { YES_OPTION, confirm } from '../../cmdutil/confirm.js';
import { deleteAgent } from '../../endpoints/agents.js';

export default defineCommand({
  description: 'Asks for confirmation on a terminal; in a script pass --yes.',
  args: [{ name: 'id', description: 'agent id', required: true }],
  options: [YES_OPTION],
  examples: ['svc agents delete agent_123', 'svc agents delete agent_123 --yes'],
  async run(ctx, [id], opts) {
    await confirm(ctx, `Delete agent ${id} permanently?`, { yes: opts.yes });
    await deleteAgent(await ctx.http(), id);
    // 204 without a body: nothing for stdout, even with --json
    ctx.out.info(`deleted agent ${id}`);
    return 0;
  },
});
