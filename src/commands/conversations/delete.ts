import { ConversationStore } from '../../store/conversations.js';
import { defineCommand } from '../../cmdutil/command.js';
import { YES_OPTION, confirm } from '../../cmdutil/confirm.js';
import { ExitCode } from '../../core/errors.js';

export default defineCommand({
  description:
    'The local history of each conversation is removed for good. Asks once for all on a terminal; off a ' +
    'terminal pass --yes.',
  args: [{ name: 'id', description: 'conversation ids', required: true, variadic: true }],
  options: [YES_OPTION],
  examples: ['svc conversations delete conv_…'],
  async run(ctx, [ids], opts) {
    const list = ids as string[];
    const what = list.length === 1 ? `conversation ${list[0]}` : `${list.length} conversations`;
    await confirm(ctx, `Delete ${what} permanently?`, { yes: opts.yes });
    const store = new ConversationStore(ctx.env);
    const missing: string[] = [];
    for (const id of ids as string[]) {
      if (store.delete(id)) {
        if (ctx.out.json) ctx.out.printJsonLine({ id, deleted: true });
        else ctx.out.line(`${id}\tdeleted`);
      } else missing.push(id);
    }
    if (missing.length) {
      ctx.out.error(`no conversation ${missing.join(', ')}`);
      return ExitCode.notFound;
    }
    return 0;
  },
});
