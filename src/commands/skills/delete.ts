import { defineCommand } from '../../cmdutil/command.js';
import { YES_OPTION } from '../../cmdutil/confirm.js';
import { deleteEach } from '../../cmdutil/delete-each.js';
import { deleteSkill } from '../../endpoints/skills.js';

export default defineCommand({
  description:
    'Deletes every id given; a failure on one does not stop the others (the exit code is that of the first ' +
    'failure). Asks once for all on a terminal; off a terminal pass --yes.',
  args: [{ name: 'id', description: 'skill ids', required: true, variadic: true }],
  examples: ['svc skills delete skill_abc123'],
  options: [YES_OPTION],
  run: (ctx, [ids], opts) => deleteEach(ctx, { noun: 'skill', yes: opts.yes }, ids as string[], deleteSkill),
});
