import { defineCommand } from '../../cmdutil/command.js';
import { UsageError } from '../../core/errors.js';
import { OPERATIONS } from 'svc-formats/api-facts';
import { maxLength } from '../../core/validate.js';
import { updateCustomVoice } from '../../endpoints/custom-voices.js';
import { printCustomVoice } from './shared.js';

const NAME_MAX = OPERATIONS.updateCustomVoice.fields['body.name'].maxLength;

export default defineCommand({
  args: [{ name: 'id', description: 'custom voice id', required: true }],
  options: [{ flags: '--name <name>', description: 'new name', parse: maxLength(NAME_MAX) }],
  examples: ['svc custom-voices update ab12cd34 --name "narrator"'],
  async run(ctx, [id], opts) {
    if (opts.name === undefined || opts.name.trim() === '')
      throw new UsageError('--name is required: the new name of the voice');
    const v = await updateCustomVoice(await ctx.http(), id, { name: opts.name });
    if (ctx.out.json) ctx.out.printJson(v);
    else printCustomVoice(ctx.out, v);
    return 0;
  },
});
