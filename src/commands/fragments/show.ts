import { readFileSync } from 'node:fs';
import { defineCommand } from '../../cmdutil/command.js';
import { ExitCode } from '../../core/errors.js';
import { fragmentFile, fragmentNames } from '../../cmdutil/fragments.js';

export default defineCommand({
  args: [{ name: 'name', description: 'fragment name', required: true, complete: 'fragments' }],
  examples: ['svc fragments show style'],
  async run(ctx, [name]) {
    if (!fragmentNames(ctx.env).includes(name)) {
      ctx.out.error(`no fragment ${name} (svc fragments list shows them)`);
      return ExitCode.notFound;
    }
    const text = readFileSync(fragmentFile(ctx.env, name), 'utf8');
    if (ctx.out.json) ctx.out.printJson({ name, text });
    else ctx.out.write(text.endsWith('\n') ? text : `${text}\n`);
    return 0;
  },
});
