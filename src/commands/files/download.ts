import { defineCommand } from '../../cmdutil/command.js';
import { forceFlags } from '../../cmdutil/flag-sets.js';
import { oneOf } from '../../core/validate.js';
import { headerValue } from '../../net/http.js';
import { fileContent, getFile } from '../../endpoints/files.js';
import { downloadError, planDownload, safeFileName, saveStream, streamToStdout } from '../../net/download.js';
import { OPERATIONS } from 'svc-formats/api-facts';

const CONTENT_FORMATS = OPERATIONS.downloadFile.fields['query.format'].enum;

export default defineCommand({
  description:
    'Streams the content to a temporary file beside the target and renames it into place once complete: an ' +
    'interrupted or failed download leaves nothing behind. Without -o the file keeps its stored name in the ' +
    'current directory; `-o DIR` saves it there, `-o -` writes to stdout. Prints the path saved.',
  args: [{ name: 'id', description: 'file id', required: true }],
  options: [
    { flags: '-o, --output <path>', description: 'file or directory to save to, or - for stdout' },
    {
      flags: '--format <format>',
      description: 'original (default) or text',
      parse: oneOf(CONTENT_FORMATS),
      choices: CONTENT_FORMATS,
    },
    ...forceFlags(),
  ],
  examples: [
    'svc files download file_abc123',
    'svc files download file_abc123 -o report.pdf',
    'svc files download file_abc123 --format text -o - | less',
  ],
  async run(ctx, [id], opts) {
    const plan = planDownload(opts.output, { force: opts.force });
    if (plan.toStdout) ctx.out.bytesToStdout();
    const http = await ctx.http();
    const toStdout = plan.toStdout;
    const target = toStdout
      ? undefined
      : (plan.target ?? plan.named(safeFileName((await getFile(http, id)).filename, id)));
    const res = await fileContent(http, id, opts.format);
    const total = Number(headerValue(res.headers['content-length'])) || undefined;
    const { progressBar } = await import('../../term/progress.js');
    // the bar names what is saved: the file's name (the id when it goes to stdout)
    const { basename } = await import('node:path');
    const bar = progressBar(ctx.out, target ? basename(target) : id, total);
    let bytes: number;
    try {
      if (toStdout)
        bytes = await streamToStdout(res.body, ctx.out, {
          signal: ctx.signal,
          onProgress: (n) => bar.update(n),
        });
      else
        bytes = await saveStream(res.body, target!, {
          force: opts.force,
          signal: ctx.signal,
          expectedBytes: total,
          onProgress: (n) => bar.update(n),
        });
    } catch (err) {
      throw downloadError(err, res.requestId, ctx.signal);
    } finally {
      bar.done();
    }
    if (toStdout && total !== undefined && bytes !== total) throw downloadError(new Error('short read'), res.requestId);
    if (toStdout) return 0;
    if (ctx.out.json) ctx.out.printJson({ id, path: target, bytes });
    else ctx.out.line(target!);
    return 0;
  },
});
