import { defineCommand } from '../../cmdutil/command.js';
import { ExitCode } from '../../core/errors.js';
import { parseTemplate, templateFile, templateNames, templateText } from '../../cmdutil/templates.js';

export default defineCommand({
  description: 'The YAML file as it is; --json: the template as JSON (checked).',
  args: [{ name: 'name', description: 'template name', required: true, complete: 'templates' }],
  examples: ['svc templates show summarize', 'svc templates show summarize --json'],
  async run(ctx, [name]) {
    if (!templateNames(ctx.env).includes(name)) {
      ctx.out.error(`no template ${name} (svc templates list shows them)`);
      return ExitCode.notFound;
    }
    const text = templateText(ctx.env, name, 'NAME');
    if (ctx.out.json) ctx.out.printJson({ name, ...(await parseTemplate(text, templateFile(ctx.env, name))) });
    else ctx.out.write(text.endsWith('\n') ? text : `${text}\n`);
    return 0;
  },
});
