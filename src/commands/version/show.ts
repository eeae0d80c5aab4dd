import { defineCommand } from '../../cmdutil/command.js';

export default defineCommand({
  examples: ['svc version', 'svc version --json'],
  async run(ctx) {
    if (ctx.out.json)
      ctx.out.printJson({
        version: ctx.version,
        node: process.versions.node,
        platform: `${process.platform}-${process.arch}`,
      });
    else ctx.out.line(ctx.version);
    return 0;
  },
});
