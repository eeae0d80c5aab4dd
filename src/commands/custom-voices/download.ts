import { defineCommand } from '../../cmdutil/command.js';
import { forceFlags } from '../../cmdutil/flag-sets.js';
import { checkTarget, downloadError, saveStream, streamToStdout } from '../../net/download.js';
import { downloadCustomVoice } from '../../endpoints/custom-voices.js';
const EXT: Record<string, string> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/flac': 'flac',
  'audio/ogg': 'ogg',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'audio/x-matroska': 'mkv',
  'audio/webm': 'webm',
};

export default defineCommand({
  description:
    'Written to a temporary file beside the target, renamed into place when complete. `-o -` (or a pipe ' +
    'without -o) writes to stdout; on a terminal without -o the file is <voice_id>.<ext>.',
  args: [{ name: 'id', description: 'custom voice id', required: true }],
  options: [{ flags: '-o, --output <file>', description: 'where to write (`-` for stdout)' }, ...forceFlags()],
  examples: ['svc custom-voices download ab12cd34 -o ref.wav', 'svc custom-voices download ab12cd34 | ffplay -'],
  async run(ctx, [id], opts) {
    const toStdout = opts.output === '-' || (opts.output === undefined && !ctx.out.stdoutIsTTY);
    if (toStdout) ctx.out.bytesToStdout();
    // a named target is checked before anything is sent
    if (!toStdout && opts.output !== undefined) checkTarget(opts.output, { force: opts.force });
    const res = await downloadCustomVoice(await ctx.http(), id);
    try {
      if (toStdout) {
        await streamToStdout(res.body, ctx.out, { signal: ctx.signal });
        return 0;
      }
      const type = String(res.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      const target = checkTarget(opts.output ?? `${id}.${EXT[type] ?? 'audio'}`, { force: opts.force });
      await saveStream(res.body, target, { force: opts.force, signal: ctx.signal });
      if (ctx.out.json) ctx.out.printJson({ voice_id: id, path: target, content_type: type });
      else ctx.out.line(target);
      return 0;
    } catch (err) {
      throw downloadError(err, res.requestId, ctx.signal);
    }
  },
});
