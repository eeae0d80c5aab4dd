import { defineCommand } from '../../cmdutil/command.js';
import { UsageError } from '../../core/errors.js';
import { EDIT_TABLE, imageRequest, runImages } from './shared.js';

export default defineCommand({
  description:
    'The --image is a local file (sent as a data URL) or an http(s) URL. Results are saved and their paths ' +
    'printed, as with `svc images generate`.',
  args: [{ name: 'prompt', description: 'the change to make', required: true, variadic: true }],
  options: EDIT_TABLE.rows,
  requests: [EDIT_TABLE],
  examples: ['svc images edit "make it night" --image photo.png -o night.png'],
  async run(ctx, [words], opts) {
    if (!opts.image) throw new UsageError('--image: required (a local image or an http(s) URL)');
    return runImages(ctx, imageRequest(EDIT_TABLE, (words as string[]).join(' '), opts), opts);
  },
});
