import { ConversationStore } from '../../store/conversations.js';
import { defineCommand } from '../../core/command.js';
import { ExitCode } from '../../core/errors.js';

export default defineCommand({
  summary: 'Delete conversations',
  args: [{ name: 'id', description: 'conversation ids', required: true, variadic: true }],
  examples: ['svc conversations delete conv_…'],
  async run(ctx, [ids]) {
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
