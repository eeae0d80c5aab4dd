import { defineCommand } from '../../cmdutil/command.js';
import { JSON_FIELDS } from '../../endpoints/json-fields.js';
import { getMe } from '../../endpoints/identity.js';

export default defineCommand({
  jsonFields: JSON_FIELDS['GET /v1/me'],
  examples: ['svc whoami', 'svc whoami --json'],
  async run(ctx) {
    const me = await getMe(await ctx.http());
    if (ctx.out.json) {
      ctx.out.printJson(me);
      return 0;
    }
    ctx.out.details([
      ['user', me.user_id],
      ['team', me.team_id],
      ['key', `${me.api_key?.redacted_api_key ?? ''} (${me.api_key?.api_key_id ?? ''})`],
      ['key blocked', me.api_key?.blocked],
      ['key disabled', me.api_key?.disabled],
      ['team blocked', me.team_blocked],
      ['zero data retention', me.zdr_status],
    ]);
    return 0;
  },
});
