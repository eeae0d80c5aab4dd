import { defineCommand } from '../../cmdutil/command.js';
import { YES_OPTION, confirm } from '../../cmdutil/confirm.js';
import { releaseNumber } from '../../endpoints/phone.js';

export default defineCommand({
  description: 'The number is given up for good. Asks for confirmation on a terminal; in a script pass --yes.',
  args: [{ name: 'id', description: 'phone number id', required: true }],
  options: [YES_OPTION],
  examples: ['svc phone release pn_123', 'svc phone release pn_123 --yes'],
  async run(ctx, [id], opts) {
    await confirm(ctx, `Release phone number ${id} permanently?`, { yes: opts.yes });
    await releaseNumber(await ctx.http(), id);
    // 204 without a body: nothing for stdout, even with --json
    ctx.out.info(`released phone number ${id}`);
    return 0;
  },
});
