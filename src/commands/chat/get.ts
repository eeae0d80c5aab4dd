import { getDeferredChat } from '../../endpoints/chat.js';
import { defineCommand } from '../../cmdutil/command.js';
import { OUTPUT } from '../../cmdutil/flag-sets.js';
import { ExitCode } from '../../core/errors.js';
import { printChatResponse } from './render.js';
import { waitForDeferred } from './wait.js';

export default defineCommand({
  description:
    'A finished result can be fetched once (within 24 h); after that the API answers 404 (exit 5). While ' +
    'pending, exits 1 with a note, unless --wait.',
  args: [{ name: 'request_id', description: 'the id printed by `svc chat --deferred`', required: true }],
  options: [
    { flags: '--wait', description: 'poll until the result is ready' },
    { ...OUTPUT.usage, description: 'print token usage and cost on stderr' },
  ],
  examples: ['svc chat get 5f0c… --wait'],
  async run(ctx, [id], opts) {
    const http = await ctx.http();
    const res = opts.wait ? await waitForDeferred(ctx, http, id) : await getDeferredChat(http, id);
    if (!res) {
      ctx.out.error(`request ${id} is still pending; try again later or add --wait`);
      return ExitCode.error;
    }
    printChatResponse(ctx, res, { usage: opts.usage });
    return 0;
  },
});
