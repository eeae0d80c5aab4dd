import { defineCommand } from '../../cmdutil/command.js';
import { JSON_FIELDS } from '../../endpoints/json-fields.js';
import { getNumber } from '../../endpoints/phone.js';
import { printNumber } from './shared.js';

export default defineCommand({
  jsonFields: JSON_FIELDS['GET /v1/phone-numbers/{phone_number_id}'],
  args: [{ name: 'id', description: 'phone number id', required: true }],
  examples: ['svc phone get pn_123', 'svc phone get pn_123 --json | jq .agent_id'],
  async run(ctx, [id]) {
    const pn = await getNumber(await ctx.http(), id);
    if (ctx.out.json) ctx.out.printJson(pn);
    else printNumber(ctx.out, pn);
    return 0;
  },
});
