import { defineCommand } from '../../cmdutil/command.js';
import { VIDEO_ROW, startVideo, videoTable } from './shared.js';

const TABLE = videoTable('edit', [{ ...VIDEO_ROW, description: 'the video to edit (required)' }]);

export default defineCommand({
  description:
    'The --video is a local file (sent as a data URL) or an http(s) URL. Prints the request id, or waits and ' +
    'downloads with --wait / -o.',
  args: [{ name: 'prompt', description: 'the change to make', required: true, variadic: true }],
  options: TABLE.rows,
  requests: [TABLE],
  examples: ['svc videos edit "make it black and white" --video clip.mp4 --wait -o bw.mp4'],
  async run(ctx, [words], opts) {
    return startVideo(ctx, TABLE, 'edit', (words as string[]).join(' '), opts);
  },
});
