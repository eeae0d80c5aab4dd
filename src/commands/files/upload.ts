import { defineCommand } from '../../cmdutil/command.js';
import { duration } from '../../core/validate.js';
import { UsageError } from '../../core/errors.js';
import { formatBytes } from '../../term/output.js';
import { EXPIRES_MAX, EXPIRES_MIN, MAX_FILE_BYTES, guessContentType, uploadFile } from '../../endpoints/files.js';

export default defineCommand({
  description:
    `Each file is streamed from disk as a multipart upload (never read whole into memory), with a progress bar ` +
    `on a terminal. At most ${formatBytes(MAX_FILE_BYTES)} per file. Prints one line per file: id, filename, bytes.`,
  args: [{ name: 'path', description: 'files to upload', required: true, variadic: true }],
  options: [
    {
      flags: '--expires-after <duration>',
      description: `delete the file after this long (${EXPIRES_MIN}-${EXPIRES_MAX} seconds; 1h, 30d …)`,
      parse: duration({ min: EXPIRES_MIN, max: EXPIRES_MAX }),
    },
    { flags: '--purpose <purpose>', description: 'purpose recorded with the file' },
  ],
  examples: [
    'svc files upload report.pdf',
    'svc files upload *.csv --expires-after 7d',
    'svc files upload notes.md --json',
  ],
  async run(ctx, [paths], opts) {
    const { stat } = await import('node:fs/promises');
    const { basename } = await import('node:path');
    // a server with a raised limit (an emulator started with a larger maxFileBytes) can be used via
    // SVC_MAX_UPLOAD_BYTES
    const override = Number(ctx.env.SVC_MAX_UPLOAD_BYTES);
    const maxBytes = Number.isInteger(override) && override > 0 ? override : MAX_FILE_BYTES;
    const files: { path: string; size: number; filename: string }[] = [];
    // every file is checked before the first byte is sent
    for (const p of paths as string[]) {
      const st = await stat(p).catch(() => undefined);
      if (!st) throw new UsageError(`${p}: no such file`);
      if (!st.isFile()) throw new UsageError(`${p}: not a regular file`);
      if (st.size > maxBytes)
        throw new UsageError(
          `${p}: ${formatBytes(st.size)} is over the upload limit of ${formatBytes(maxBytes)} per file ` +
            `(${st.size} > ${maxBytes} bytes): split it into parts under the limit (split -b ${splitSize(maxBytes)}) ` +
            'and upload each, or, for a server that takes more, set SVC_MAX_UPLOAD_BYTES',
        );
      files.push({ path: p, size: st.size, filename: basename(p) });
    }
    if (opts.purpose !== undefined && opts.purpose.trim() === '')
      throw new UsageError('--purpose: an empty purpose is not allowed');
    const http = await ctx.http();
    const { progressBar } = await import('../../term/progress.js');
    for (const f of files) {
      const bar = progressBar(ctx.out, f.filename, f.size);
      let file;
      try {
        file = await uploadFile(http, {
          ...f,
          contentType: guessContentType(f.filename),
          expiresAfter: opts.expiresAfter,
          purpose: opts.purpose,
          onProgress: (sent, total) => bar.update(sent, total),
        });
      } finally {
        bar.done();
      }
      if (ctx.out.json) ctx.out.printJsonLine(file);
      else
        ctx.out.line(
          ctx.out.stdoutIsTTY
            ? `${file.id}  ${file.filename}  ${formatBytes(file.bytes)}`
            : `${file.id}\t${file.filename}\t${file.bytes}`,
        );
    }
    return 0;
  },
});

/** The limit as split(1) takes a size: whole MiB (or KiB, or bytes) at most the limit. */
function splitSize(maxBytes: number): string {
  if (maxBytes >= 1024 * 1024) return `${Math.floor(maxBytes / (1024 * 1024))}M`;
  if (maxBytes >= 1024) return `${Math.floor(maxBytes / 1024)}K`;
  return String(maxBytes);
}
