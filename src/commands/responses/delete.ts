import { deleteResponse } from '../../endpoints/responses.js';
import { defineCommand } from '../../cmdutil/command.js';
import { YES_OPTION, confirm } from '../../cmdutil/confirm.js';
import { forgetResponse } from './state.js';

export default defineCommand({
  description:
    'After this, getting it answers 404 (exit 5). If it was the one `-c` would continue, that is forgotten ' +
    'too. Asks for confirmation on a terminal; off a terminal pass --yes.',
  options: [YES_OPTION],
  args: [{ name: 'id', description: 'response id', required: true }],
  examples: ['svc responses delete 2b6c…', 'svc responses delete 2b6c… --yes'],
  async run(ctx, [id], opts) {
    await confirm(ctx, `Delete stored response ${id} permanently?`, { yes: opts.yes });
    const r = await deleteResponse(await ctx.http(), id);
    forgetResponse(ctx, id);
    if (ctx.out.json) ctx.out.printJson(r);
    else ctx.out.line(`${r.id}\t${r.deleted ? 'deleted' : 'not deleted'}`);
    return r.deleted ? 0 : 1;
  },
});
