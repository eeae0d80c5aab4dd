import { readFileSync } from 'node:fs';
import { defineCommand } from '../../cmdutil/command.js';
import { fragmentFile, fragmentNames } from '../../cmdutil/fragments.js';

export default defineCommand({
  description: 'NAME, SIZE (characters) and its first line; --json: one {"name", "text"} per line.',
  examples: ['svc fragments list'],
  async run(ctx) {
    const rows = fragmentNames(ctx.env).map((name) => ({
      name,
      text: readFileSync(fragmentFile(ctx.env, name), 'utf8'),
    }));
    if (ctx.out.json) for (const row of rows) ctx.out.printJsonLine(row);
    else
      await ctx.out.table(
        rows,
        [
          { header: 'NAME', get: (f) => f.name, keep: true },
          { header: 'SIZE', get: (f) => f.text.length, align: 'right' },
          { header: 'FIRST LINE', get: (f) => f.text.split('\n')[0] },
        ],
        { emptyMessage: 'no fragments (svc fragments save NAME FILE makes one)' },
      );
    return 0;
  },
});
