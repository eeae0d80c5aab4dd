import { defineCommand } from '../../cmdutil/command.js';
import { GENERATE_TABLE, imageRequest, runImages } from './shared.js';

export default defineCommand({
  description:
    'Saves each image to a file (from its URL or base64) and prints the paths. With --json the raw reply is ' +
    'printed instead, and files are saved only with -o.',
  args: [{ name: 'prompt', description: 'what to draw', required: true, variadic: true }],
  options: GENERATE_TABLE.rows,
  requests: [GENERATE_TABLE],
  examples: [
    'svc images generate "a lighthouse at dusk"',
    'svc images generate "app icon, flat" -n 4 -o icons/',
    'svc images generate "a fox" --aspect-ratio 16:9 -o fox.png',
  ],
  async run(ctx, [words], opts) {
    return runImages(ctx, imageRequest(GENERATE_TABLE, (words as string[]).join(' '), opts), opts);
  },
});
