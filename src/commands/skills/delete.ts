import { defineCommand } from '../../core/command.js';
import { deleteEach } from '../../core/delete-each.js';
import { deleteSkill } from '../../api/skills.js';

export default defineCommand({
  summary: 'Delete skills',
  description: 'Deletes every id given; a failure on one does not stop the others (the exit code is that of the first failure).',
  args: [{ name: 'id', description: 'skill ids', required: true, variadic: true }],
  examples: ['svc skills delete skill_abc123'],
  run: (ctx, [ids]) => deleteEach(ctx, ids as string[], deleteSkill),
});
