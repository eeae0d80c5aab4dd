import { rmSync } from 'node:fs';
import { defineCommand } from '../../cmdutil/command.js';
import { ExitCode } from '../../core/errors.js';
import { fragmentFile, fragmentNames } from '../../cmdutil/fragments.js';

export default defineCommand({
  args: [{ name: 'name', description: 'fragment names', required: true, variadic: true, complete: 'fragments' }],
  examples: ['svc fragments delete style'],
  async run(ctx, [names]) {
    const saved = fragmentNames(ctx.env);
    const missing = (names as string[]).filter((n) => !saved.includes(n));
    if (missing.length) {
      ctx.out.error(`no fragment ${missing.join(', ')} (svc fragments list shows them); nothing deleted`);
      return ExitCode.notFound;
    }
    for (const n of names as string[]) {
      rmSync(fragmentFile(ctx.env, n));
      if (ctx.out.json) ctx.out.printJsonLine({ name: n, deleted: true });
      else ctx.out.info(`deleted fragment ${n}`);
    }
    return 0;
  },
});
