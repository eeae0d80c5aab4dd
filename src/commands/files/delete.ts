import { defineCommand } from '../../cmdutil/command.js';
import { YES_OPTION } from '../../cmdutil/confirm.js';
import { deleteEach } from '../../cmdutil/delete-each.js';
import { deleteFile } from '../../endpoints/files.js';

export default defineCommand({
  description:
    'Deletes every id given; a failure on one does not stop the others (the exit code is that of the first ' +
    'failure). Asks once for all on a terminal; off a terminal pass --yes.',
  args: [{ name: 'id', description: 'file ids', required: true, variadic: true }],
  examples: [
    'svc files delete file_abc123',
    'svc files list --filter \'name:"tmp"\' | cut -f1 | xargs -r svc files rm --yes',
  ],
  options: [YES_OPTION],
  run: (ctx, [ids], opts) => deleteEach(ctx, { noun: 'file', yes: opts.yes }, ids as string[], deleteFile),
});
