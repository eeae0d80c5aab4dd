import { defineCommand } from '../../cmdutil/command.js';
import { loadTemplate, templateNames, variablesOf } from '../../cmdutil/templates.js';
import { templateUses } from '../../cmdutil/template-trust.js';
import { terminalSafe } from '../../term/terminal-safe.js';

export default defineCommand({
  description:
    'NAME, MODEL, VARIABLES, what it is (its description, else the start of its system prompt or prompt) and ' +
    'what it USES: every program it runs (--mcp servers, --tool-cmd commands) and local file it reads; ' +
    'tab-separated in a pipe; --json: one {"name", …template, "uses": {"programs", "files"}} per line.',
  examples: ['svc templates list', 'svc templates list --json --jq .name'],
  async run(ctx) {
    const rows = [];
    const profile = ctx.config().profileData as Record<string, string | undefined>;
    for (const name of templateNames(ctx.env)) {
      const t = await loadTemplate(ctx.env, name);
      rows.push({ name, ...t, uses: templateUses(t, profile) });
    }
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
        // never cut: what a template runs and reads is what a person must see
        {
          header: 'USES',
          get: (t) => terminalSafe([...t.uses.programs, ...t.uses.files.map((f) => `reads ${f}`)].join('; ')),
          keep: true,
        },
      ],
      { emptyMessage: 'no templates (svc templates save NAME makes one)' },
    );
    return 0;
  },
});
