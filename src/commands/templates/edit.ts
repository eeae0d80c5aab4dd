import { defineCommand } from '../../cmdutil/command.js';
import { ExitCode, UsageError } from '../../core/errors.js';
import { parseTemplate, templateFile, templateNames, templateText } from '../../cmdutil/templates.js';
import { runEditor } from '../../cmdutil/editor.js';

export default defineCommand({
  description:
    'Runs $VISUAL, else $EDITOR, else vi on NAME.yaml (the editor line may carry arguments: EDITOR="code -w"). ' +
    'Once it exits, the template is read back: a file that no longer reads as a template is exit 1 saying why ' +
    '(the file keeps your edit; edit again).',
  args: [{ name: 'name', description: 'template name', required: true, complete: 'templates' }],
  examples: ['svc templates edit summarize', 'EDITOR=nano svc templates edit summarize'],
  async run(ctx, [name]) {
    if (!templateNames(ctx.env).includes(name)) {
      ctx.out.error(`no template ${name} (svc templates save ${name} makes it)`);
      return ExitCode.notFound;
    }
    const file = templateFile(ctx.env, name);
    const status = await runEditor(ctx, file);
    if (status !== 0) {
      ctx.out.error(`the editor exited with ${status}: template ${name} left as the editor left it`);
      return ExitCode.error;
    }
    try {
      await parseTemplate(templateText(ctx.env, name, 'NAME'), file);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      ctx.out.error(`${err.message}\n(the file keeps your edit: svc templates edit ${name} to fix it)`);
      return ExitCode.error;
    }
    ctx.out.info(`template ${name} saved`);
    return 0;
  },
});
