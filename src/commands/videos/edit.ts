import { defineCommand } from '../../core/command.js';
import { createOptions, startVideo, type VideoOpts } from './shared.js';

export default defineCommand<VideoOpts>({
  summary: 'Edit a video with a prompt',
  description: 'The --video is a local file (sent as a data URL) or an http(s) URL. Prints the request id, or waits and downloads with --wait / -o.',
  args: [{ name: 'prompt', description: 'the change to make', required: true, variadic: true }],
  options: [{ flags: '--video <path|url>', description: 'the video to edit (required)' }, ...createOptions],
  examples: ['svc videos edit "make it black and white" --video clip.mp4 --wait -o bw.mp4'],
  async run(ctx, [words], opts) {
    return startVideo(ctx, 'edit', (words as string[]).join(' '), opts);
  },
});
