import { deleteResponse } from '../../api/responses.js';
import { defineCommand } from '../../core/command.js';
import { forgetResponse } from './state.js';

export default defineCommand({
  summary: 'Delete a stored response',
  description: 'After this, getting it answers 404 (exit 5). If it was the one `-c` would continue, that is forgotten too.',
  args: [{ name: 'id', description: 'response id', required: true }],
  examples: ['svc responses delete 2b6c…'],
  async run(ctx, [id]) {
    const r = await deleteResponse(await ctx.http(), id);
    forgetResponse(ctx, id);
    if (ctx.out.json) ctx.out.printJson(r);
    else ctx.out.line(`${r.id}\t${r.deleted ? 'deleted' : 'not deleted'}`);
    return r.deleted ? 0 : 1;
  },
});
