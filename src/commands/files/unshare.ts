import { defineCommand } from '../../core/command.js';
import { revokePublicUrl } from '../../api/files.js';

export default defineCommand({
  summary: 'Revoke the public URL of a file',
  description: 'The link stops working at once. A file without an active link is not an error (`revoked: false`).',
  args: [{ name: 'id', description: 'file id', required: true }],
  examples: ['svc files unshare file_abc123'],
  async run(ctx, [id]) {
    const r = await revokePublicUrl(await ctx.http(), id);
    if (ctx.out.json) ctx.out.printJson(r);
    else if (r.revoked) ctx.out.line(`${id}\trevoked${r.public_url ? `\t${r.public_url}` : ''}`);
    else ctx.out.line(`${id}\tno active public link`);
    return 0;
  },
});
