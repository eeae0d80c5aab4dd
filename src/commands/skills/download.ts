import { defineCommand } from '../../cmdutil/command.js';
import { forceFlags } from '../../cmdutil/flag-sets.js';
import { headerValue } from '../../net/http.js';
import { downloadError, planDownload, safeFileName, saveStream, streamToStdout } from '../../net/download.js';
import { getSkill, skillContent } from '../../endpoints/skills.js';

export default defineCommand({
  description:
    'Saved atomically (temp file, then rename). Without -o: <name>.zip in the current directory; `-o -` ' +
    'writes to stdout. Prints the path saved.',
  args: [{ name: 'id', description: 'skill id', required: true }],
  options: [
    { flags: '-o, --output <path>', description: 'file or directory to save to, or - for stdout' },
    ...forceFlags(),
  ],
  examples: ['svc skills download skill_abc123', 'svc skills download skill_abc123 -o skill.zip && unzip -l skill.zip'],
  async run(ctx, [id], opts) {
    const plan = planDownload(opts.output, { force: opts.force });
    if (plan.toStdout) ctx.out.bytesToStdout();
    const http = await ctx.http();
    const toStdout = plan.toStdout;
    const target = toStdout
      ? undefined
      : (plan.target ?? plan.named(`${safeFileName((await getSkill(http, id)).name, id)}.zip`));
    const res = await skillContent(http, id);
    const total = Number(headerValue(res.headers['content-length'])) || undefined;
    let bytes: number;
    try {
      if (toStdout) return (await streamToStdout(res.body, ctx.out, { signal: ctx.signal }), 0);
      bytes = await saveStream(res.body, target!, { force: opts.force, signal: ctx.signal, expectedBytes: total });
    } catch (err) {
      throw downloadError(err, res.requestId, ctx.signal);
    }
    if (ctx.out.json) ctx.out.printJson({ id, path: target, bytes });
    else ctx.out.line(target!);
    return 0;
  },
});
