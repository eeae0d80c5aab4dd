import { defineCommand } from '../../cmdutil/command.js';
import { loadTemplate, templateNames, variablesOf } from '../../cmdutil/templates.js';

export default defineCommand({
  description:
    'NAME, MODEL, VARIABLES and what it is (its description, else the start of its system prompt or prompt); ' +
    'tab-separated in a pipe; --json: one {"name", …template} per line.',
  examples: ['svc templates list', 'svc templates list --json --jq .name'],
  async run(ctx) {
    const rows = [];
    for (const name of templateNames(ctx.env)) rows.push({ name, ...(await loadTemplate(ctx.env, name)) });
    if (ctx.out.json) {
      for (const row of rows) ctx.out.printJsonLine(row);
      return 0;
    }
    await ctx.out.table(
      rows,
      [
        { header: 'NAME', get: (t) => t.name, keep: true },
        { header: 'MODEL', get: (t) => t.model ?? '' },
        { header: 'VARIABLES', get: (t) => variablesOf(t).join(',') },
        { header: 'ABOUT', get: (t) => (t.description ?? t.system ?? t.prompt ?? '').split('\n')[0] },
      ],
      { emptyMessage: 'no templates (svc templates save NAME makes one)' },
    );
    return 0;
  },
});
