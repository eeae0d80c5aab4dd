import { defineCommand } from '../../core/command.js';
import { describeError, exitCodeFor } from '../../core/errors.js';
import { deleteFile } from '../../api/files.js';

export default defineCommand({
  summary: 'Delete files',
  description: 'Deletes every id given; a failure on one does not stop the others (the exit code is that of the first failure).',
  args: [{ name: 'id', description: 'file ids', required: true, variadic: true }],
  examples: ['svc files delete file_abc123', 'svc files list --filter \'name:"tmp"\' | cut -f1 | xargs svc files rm'],
  async run(ctx, [ids]) {
    const http = await ctx.http();
    let code = 0;
    for (const id of ids as string[]) {
      try {
        const r = await deleteFile(http, id);
        if (ctx.out.json) ctx.out.printJsonLine(r);
        else ctx.out.line(`${r.id ?? id}\t${r.deleted ? 'deleted' : 'not deleted'}`);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        ctx.out.error(`${id}: ${describeError(err)}`);
        if (code === 0) code = exitCodeFor(err);
      }
    }
    return code;
  },
});
