import { defineCommand } from '../../cmdutil/command.js';
import { ExitCode } from '../../core/errors.js';
import { deleteTemplate, templateNames } from '../../cmdutil/templates.js';

export default defineCommand({
  args: [{ name: 'name', description: 'template names', required: true, variadic: true, complete: 'templates' }],
  examples: ['svc templates delete summarize'],
  async run(ctx, [names]) {
    const saved = templateNames(ctx.env);
    const missing = (names as string[]).filter((n) => !saved.includes(n));
    if (missing.length) {
      ctx.out.error(`no template ${missing.join(', ')} (svc templates list shows them); nothing deleted`);
      return ExitCode.notFound;
    }
    for (const n of names as string[]) {
      deleteTemplate(ctx.env, n);
      if (ctx.out.json) ctx.out.printJsonLine({ name: n, deleted: true });
      else ctx.out.info(`deleted template ${n}`);
    }
    return 0;
  },
});
