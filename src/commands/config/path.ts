import { defineCommand } from '../../core/command.js';

export default defineCommand({
  summary: 'Print the path of the configuration file',
  async run(ctx) {
    ctx.out.line(ctx.config().file);
    return 0;
  },
});
