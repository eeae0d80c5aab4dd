import { ConversationStore, messageText } from '../../store/conversations.js';
import { defineCommand } from '../../cmdutil/command.js';
import { ExitCode } from '../../core/errors.js';

export default defineCommand({
  description: 'Each message as "role: text" (tool calls and results included); --json prints the stored conversation.',
  args: [{ name: 'id', description: 'conversation id (default: the last one)' }],
  examples: ['svc conversations show', 'svc conversations show conv_… --json'],
  async run(ctx, [id]) {
    const store = new ConversationStore(ctx.env);
    const which = id ?? store.latestId(ctx.config().profile);
    if (!which) {
      ctx.out.error(`no conversation yet for the profile ${ctx.config().profile}`);
      return ExitCode.notFound;
    }
    const conv = store.load(which);
    if (!conv) {
      ctx.out.error(`no conversation ${which} (see \`svc conversations list\`)`);
      return ExitCode.notFound;
    }
    if (ctx.out.json) {
      ctx.out.printJson(conv);
      return 0;
    }
    const c = ctx.out.c;
    for (const m of conv.messages) {
      const label = m.role === 'user' ? c.bold('user') : m.role === 'assistant' ? c.cyan('assistant') : c.dim(m.role);
      const text = messageText(m);
      if (text) ctx.out.line(`${label}: ${text}`);
      for (const call of m.tool_calls ?? [])
        ctx.out.line(`${label}: ${c.dim('calls')} ${call.function.name}(${call.function.arguments})`);
    }
    return 0;
  },
});
