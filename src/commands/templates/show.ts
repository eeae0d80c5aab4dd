import { defineCommand } from '../../cmdutil/command.js';
import { ExitCode } from '../../core/errors.js';
import { parseTemplate, templateFile, templateNames, templateText } from '../../cmdutil/templates.js';
import { templateUses } from '../../cmdutil/template-trust.js';
import { terminalSafe } from '../../term/terminal-safe.js';

export default defineCommand({
  description:
    'The YAML file as it is on stdout, then on stderr every program it runs (--mcp servers, a configured one with ' +
    'its command line; --tool-cmd commands) and local file it reads; --json: the template as JSON (checked), with ' +
    '"uses": {"programs", "files"}.',
  args: [{ name: 'name', description: 'template name', required: true, complete: 'templates' }],
  examples: ['svc templates show summarize', 'svc templates show summarize --json'],
  async run(ctx, [name]) {
    if (!templateNames(ctx.env).includes(name)) {
      ctx.out.error(`no template ${name} (svc templates list shows them)`);
      return ExitCode.notFound;
    }
    const text = templateText(ctx.env, name, 'NAME');
    const t = await parseTemplate(text, templateFile(ctx.env, name));
    const uses = templateUses(t, ctx.config().profileData as Record<string, string | undefined>);
    if (ctx.out.json) {
      ctx.out.printJson({ name, ...t, uses });
      return 0;
    }
    // a file anyone may have written: its escapes shown, not obeyed, on a terminal
    const shown = ctx.out.stdoutIsTTY ? terminalSafe(text) : text;
    ctx.out.write(shown.endsWith('\n') ? shown : `${shown}\n`);
    for (const p of uses.programs) ctx.out.info(terminalSafe(`runs ${p}`));
    for (const f of uses.files) ctx.out.info(terminalSafe(`reads ${f}`));
    return 0;
  },
});
