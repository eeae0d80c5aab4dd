import { defineCommand } from '../../cmdutil/command.js';
import { ExitCode } from '../../core/errors.js';
import { readAliases, writeAliases } from '../../runtime/aliases.js';

export default defineCommand({
  args: [{ name: 'name', description: 'alias names', required: true, variadic: true, complete: 'aliases' }],
  examples: ['svc alias delete ask'],
  async run(ctx, [names]) {
    const aliases = readAliases(ctx.env);
    const missing = (names as string[]).filter((n) => !Object.hasOwn(aliases, n));
    if (missing.length) {
      ctx.out.error(`no alias ${missing.join(', ')} (svc alias list shows them); nothing deleted`);
      return ExitCode.notFound;
    }
    for (const n of names as string[]) delete aliases[n];
    writeAliases(ctx.env, aliases);
    for (const n of names as string[]) {
      if (ctx.out.json) ctx.out.printJsonLine({ name: n, deleted: true });
      else ctx.out.info(`deleted alias ${n}`);
    }
    return 0;
  },
});
