import { defineCommand } from '../../cmdutil/command.js';

export default defineCommand({
  examples: ['svc config path', 'svc config path --json'],
  async run(ctx) {
    if (ctx.out.json) ctx.out.printJson({ path: ctx.config().file });
    else ctx.out.line(ctx.config().file);
    return 0;
  },
});
