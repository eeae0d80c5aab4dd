import { defineCommand } from '../../cmdutil/command.js';
import { JSON_FIELDS } from '../../endpoints/json-fields.js';
import { getVideo } from '../../endpoints/videos.js';
import { reportFailure } from './shared.js';

export default defineCommand({
  jsonFields: JSON_FIELDS['GET /v1/videos/{request_id}'],
  description:
    'Prints status, progress and (when done) the video URL and duration. A failed job prints its error code ' +
    'and message and exits 1.',
  args: [{ name: 'request_id', description: 'the request id', required: true }],
  examples: ['svc videos get 2b1c…', 'svc videos get 2b1c… --json'],
  async run(ctx, [id]) {
    const { raw, job } = await getVideo(await ctx.http(), id);
    if (ctx.out.json) ctx.out.printJson(raw ?? { status: job.status });
    else
      ctx.out.details([
        ['status', job.status],
        ['progress', job.progress],
        ['model', job.model],
        ['url', job.video?.url],
        ['duration', job.video?.duration],
        ['respect_moderation', job.video?.respect_moderation],
        ['error', job.error ? `${job.error.code}: ${job.error.message}` : undefined],
      ]);
    if (job.status === 'failed' || job.status === 'expired') return reportFailure(ctx, id, job);
    return 0;
  },
});
