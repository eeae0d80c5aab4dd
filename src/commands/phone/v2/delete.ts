import { defineCommand } from '../../../cmdutil/command.js';
import { YES_OPTION, confirm } from '../../../cmdutil/confirm.js';
import { deleteV2 } from '../../../endpoints/phone.js';

export default defineCommand({
  args: [{ name: 'id', description: 'phone number id', required: true }],
  options: [YES_OPTION],
  examples: ['svc phone v2 delete pn_123 --yes'],
  async run(ctx, [id], opts) {
    await confirm(ctx, `Remove phone number ${id} permanently?`, { yes: opts.yes });
    await deleteV2(await ctx.http(), id);
    // 204 without a body: nothing for stdout, even with --json
    ctx.out.info(`removed phone number ${id}`);
    return 0;
  },
});
