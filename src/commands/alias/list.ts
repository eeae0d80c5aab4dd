import { defineCommand } from '../../cmdutil/command.js';
import { readAliases } from '../../runtime/aliases.js';

export default defineCommand({
  description: 'Tab-separated NAME and EXPANSION in a pipe; --json: one {"name", "expansion"} per line.',
  examples: ['svc alias list', 'svc alias list --json'],
  async run(ctx) {
    const rows = Object.entries(readAliases(ctx.env)).map(([name, expansion]) => ({ name, expansion }));
    if (ctx.out.json) for (const row of rows) ctx.out.printJsonLine(row);
    else
      await ctx.out.table(
        rows,
        [
          { header: 'NAME', get: (r) => r.name, keep: true },
          { header: 'EXPANSION', get: (r) => r.expansion },
        ],
        { emptyMessage: 'no aliases (svc alias set NAME EXPANSION makes one)' },
      );
    return 0;
  },
});
