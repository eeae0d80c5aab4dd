import { defineCommand } from '../../cmdutil/command.js';
import { JSON_FIELDS } from '../../endpoints/json-fields.js';
import { getCustomVoice } from '../../endpoints/custom-voices.js';
import { printCustomVoice } from './shared.js';

export default defineCommand({
  jsonFields: JSON_FIELDS['GET /v1/custom-voices/{voice_id}'],
  args: [{ name: 'id', description: 'custom voice id', required: true }],
  examples: ['svc custom-voices get ab12cd34'],
  async run(ctx, [id]) {
    const v = await getCustomVoice(await ctx.http(), id);
    if (ctx.out.json) ctx.out.printJson(v);
    else printCustomVoice(ctx.out, v);
    return 0;
  },
});
