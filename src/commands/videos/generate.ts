import { defineCommand } from '../../cmdutil/command.js';
import { integer } from '../../core/validate.js';
import { DURATION } from '../../endpoints/videos.js';
import { startVideo, videoTable } from './shared.js';

const TABLE = videoTable('generation', [
  {
    flags: '--duration <seconds>',
    description: `length in seconds (${DURATION.min}-${DURATION.max}, default ${DURATION.default})`,
    parse: integer({ min: DURATION.min, max: DURATION.max }),
    field: 'duration',
  },
]);

export default defineCommand({
  description:
    'Prints the request id; with --wait (or -o) polls until the video is done, then downloads it and prints ' +
    'its path. A failed job prints its error code and message and exits 1.',
  args: [{ name: 'prompt', description: 'what the video shows', required: true, variadic: true }],
  options: TABLE.rows,
  requests: [TABLE],
  examples: [
    'svc videos generate "waves on a beach at sunset"',
    'svc videos generate "a paper boat" --duration 5 --wait -o boat.mp4',
    'svc videos generate "zoom in" --image first.png --resolution 720p',
  ],
  async run(ctx, [words], opts) {
    return startVideo(ctx, TABLE, 'generation', (words as string[]).join(' '), opts);
  },
});
