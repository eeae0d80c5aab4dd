import { defineCommand } from '../../cmdutil/command.js';
import { integer } from '../../core/validate.js';
import { EXTENSION } from '../../endpoints/videos.js';
import { VIDEO_ROW, startVideo, videoTable } from './shared.js';

const TABLE = videoTable('extension', [
  { ...VIDEO_ROW, description: 'the video to extend (required)' },
  {
    flags: '--duration <seconds>',
    description: `seconds to add (${EXTENSION.min}-${EXTENSION.max}, default ${EXTENSION.default})`,
    parse: integer({ min: EXTENSION.min, max: EXTENSION.max }),
    field: 'duration',
  },
]);

export default defineCommand({
  description:
    'Adds --duration seconds to the --video (a local file or an http(s) URL). Prints the request id, or ' +
    'waits and downloads with --wait / -o.',
  args: [{ name: 'prompt', description: 'what happens next', required: true, variadic: true }],
  options: TABLE.rows,
  requests: [TABLE],
  examples: ['svc videos extend "the boat sails away" --video boat.mp4 --duration 4 --wait -o longer.mp4'],
  async run(ctx, [words], opts) {
    return startVideo(ctx, TABLE, 'extension', (words as string[]).join(' '), opts);
  },
});
