import { defineCommand } from '../../cmdutil/command.js';
import { duration } from '../../core/validate.js';
import { ApiError, PreconditionError } from '../../core/errors.js';
import { formatBytes, formatUnixTime } from '../../term/output.js';
import { EXPIRES_MAX, EXPIRES_MIN, MAX_FILE_BYTES, createPublicUrl, getFile } from '../../endpoints/files.js';

export const PUBLIC_URL_QUOTA = 1000;

export default defineCommand({
  description:
    `Anyone with the URL can download the file until it expires or \`svc files unshare\` revokes it. ` +
    `--expires-after is ${EXPIRES_MIN}-${EXPIRES_MAX} seconds and not beyond the file's own remaining ` +
    `lifetime; without it the link inherits the file's expiry (or never expires). A team has at most ` +
    `${PUBLIC_URL_QUOTA} active links.`,
  args: [{ name: 'id', description: 'file id', required: true }],
  options: [
    {
      flags: '--expires-after <duration>',
      description: `link lifetime (${EXPIRES_MIN}-${EXPIRES_MAX} seconds; 1h, 7d …)`,
      parse: duration({ min: EXPIRES_MIN, max: EXPIRES_MAX }),
    },
  ],
  examples: [
    'svc files share file_abc123',
    'svc files share file_abc123 --expires-after 1d',
    'curl -O "$(svc files share file_abc123)"',
  ],
  async run(ctx, [id], opts) {
    const http = await ctx.http();
    // the limits that depend on the file are checked from its metadata before the link is asked for
    const file = await getFile(http, id);
    const now = Math.floor(ctx.now() / 1000);
    // these checks follow a request (the file's metadata): a refusal is exit 1, not 2 ("nothing was sent")
    if (opts.expiresAfter !== undefined && typeof file.expires_at === 'number') {
      const remaining = file.expires_at - now;
      if (opts.expiresAfter > remaining) {
        throw new PreconditionError(
          `--expires-after: ${opts.expiresAfter} seconds is not allowed: at most the file's remaining ` +
            `lifetime (${Math.max(0, remaining)} seconds, until ${formatUnixTime(file.expires_at)})`,
        );
      }
    }
    if (file.bytes === 0) throw new PreconditionError(`${id}: an empty file cannot be shared`);
    if (file.bytes > MAX_FILE_BYTES)
      throw new PreconditionError(
        `${id}: ${file.bytes} bytes is over the ${formatBytes(MAX_FILE_BYTES)} limit for public links`,
      );
    let link;
    try {
      link = await createPublicUrl(http, id, opts.expiresAfter);
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) {
        throw new ApiError(
          429,
          `public link quota or rate limit reached (a team may have ${PUBLIC_URL_QUOTA} active links; revoke ` +
            `unused ones with \`svc files unshare ID\`): ${err.message}`,
          err.code,
          err.requestId,
          err.retryAfterMs,
        );
      }
      throw err;
    }
    if (ctx.out.json) {
      ctx.out.printJson(link);
      return 0;
    }
    ctx.out.line(link.public_url);
    ctx.out.info(link.expires_at ? `expires ${formatUnixTime(link.expires_at)}` : 'does not expire');
    return 0;
  },
});
