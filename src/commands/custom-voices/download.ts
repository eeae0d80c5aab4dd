import { createWriteStream, renameSync, unlinkSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { defineCommand } from '../../core/command.js';
import { streamError } from '../../core/http.js';
import { downloadCustomVoice } from '../../api/custom-voices.js';

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

export default defineCommand<{ output?: string }>({
  summary: 'Download the reference clip of a custom voice',
  description: 'Written to a temporary file beside the target, renamed into place when complete. `-o -` (or a pipe without -o) writes to stdout; on a terminal without -o the file is <voice_id>.<ext>.',
  args: [{ name: 'id', description: 'custom voice id', required: true }],
  options: [{ flags: '-o, --output <file>', description: 'where to write (`-` for stdout)' }],
  examples: ['svc custom-voices download ab12cd34 -o ref.wav', 'svc custom-voices download ab12cd34 | ffplay -'],
  async run(ctx, [id], opts) {
    const res = await downloadCustomVoice(await ctx.http(), id);
    const toStdout = opts.output === '-' || (opts.output === undefined && !ctx.out.stdoutIsTTY);
    try {
      if (toStdout) {
        for await (const chunk of res.body) ctx.out.write(chunk as Buffer);
        return 0;
      }
      const type = String(res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const target = opts.output ?? `${id}.${EXT[type] ?? 'audio'}`;
      const tmp = `${target}.${process.pid}.part`;
      try {
        await pipeline(res.body, createWriteStream(tmp));
        renameSync(tmp, target);
      } catch (err) {
        try {
          unlinkSync(tmp);
        } catch {
          // nothing was written
        }
        throw err;
      }
      if (ctx.out.json) ctx.out.printJson({ voice_id: id, path: target, content_type: type });
      else ctx.out.line(target);
      return 0;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code?.startsWith('E') && (err as NodeJS.ErrnoException).syscall) throw err;
      throw streamError(err, res.requestId, ctx.signal);
    }
  },
});
