import { defineCommand } from '../../cmdutil/command.js';
import { YES_OPTION, confirm } from '../../cmdutil/confirm.js';
import { deleteCustomVoice } from '../../endpoints/custom-voices.js';

export default defineCommand({
  args: [{ name: 'id', description: 'custom voice id', required: true }],
  options: [YES_OPTION],
  examples: ['svc custom-voices delete ab12cd34 --yes'],
  async run(ctx, [id], opts) {
    await confirm(ctx, `Delete custom voice ${id} permanently?`, { yes: opts.yes });
    const reply = await deleteCustomVoice(await ctx.http(), id);
    if (ctx.out.json) ctx.out.printJson(reply);
    else ctx.out.info(`deleted custom voice ${id}`);
    return 0;
  },
});
