import { defineCommand } from '../../cmdutil/command.js';
import { checkTarget } from '../../net/download.js';
import { waitAndSave, waitOptions } from './shared.js';

export default defineCommand({
  description:
    'Polls with a spinner (status, progress, elapsed time) on a terminal, then saves the video atomically ' +
    'and prints its path. A failed job prints its error code and message and exits 1.',
  args: [{ name: 'request_id', description: 'the request id', required: true }],
  options: waitOptions,
  examples: ['svc videos wait 2b1c… -o clip.mp4'],
  async run(ctx, [id], opts) {
    if (opts.output !== undefined) checkTarget(opts.output, { force: opts.force });
    return waitAndSave(ctx, await ctx.http(), id, opts);
  },
});
