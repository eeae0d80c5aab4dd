import { defineCommand } from '../../cmdutil/command.js';
import { JSON_FIELDS } from '../../endpoints/json-fields.js';
import { formatUnixTime } from '../../term/output.js';
import { getSkill } from '../../endpoints/skills.js';

export default defineCommand({
  jsonFields: JSON_FIELDS['GET /v1/skills/{skill_id}'],
  args: [{ name: 'id', description: 'skill id', required: true }],
  examples: ['svc skills get skill_abc123'],
  async run(ctx, [id]) {
    const s = await getSkill(await ctx.http(), id);
    if (ctx.out.json) ctx.out.printJson(s);
    else
      ctx.out.details(
        Object.entries(s).map(([k, v]) => [k, k === 'created_at' && typeof v === 'number' ? formatUnixTime(v) : v]),
      );
    return 0;
  },
});
