import { defineCommand } from '../../cmdutil/command.js';
import { YES_OPTION, confirm } from '../../cmdutil/confirm.js';
import { revokePublicUrl } from '../../endpoints/files.js';

export default defineCommand({
  description:
    'The link stops working at once. A file without an active link is not an error (`revoked: false`). Asks ' +
    'for confirmation on a terminal; off a terminal pass --yes.',
  options: [YES_OPTION],
  args: [{ name: 'id', description: 'file id', required: true }],
  examples: ['svc files unshare file_abc123', 'svc files unshare file_abc123 --yes'],
  async run(ctx, [id], opts) {
    await confirm(ctx, `Revoke the public link of file ${id} (it stops working for everyone)?`, { yes: opts.yes });
    const r = await revokePublicUrl(await ctx.http(), id);
    if (ctx.out.json) ctx.out.printJson(r);
    else if (r.revoked) ctx.out.line(`${id}\trevoked${r.public_url ? `\t${r.public_url}` : ''}`);
    else ctx.out.line(`${id}\tno active public link`);
    return 0;
  },
});
