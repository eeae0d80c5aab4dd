import { defineCommand } from '../../core/command.js';
import { deleteEach } from '../../core/delete-each.js';
import { deleteFile } from '../../api/files.js';

export default defineCommand({
  summary: 'Delete files',
  description: 'Deletes every id given; a failure on one does not stop the others (the exit code is that of the first failure).',
  args: [{ name: 'id', description: 'file ids', required: true, variadic: true }],
  examples: ['svc files delete file_abc123', 'svc files list --filter \'name:"tmp"\' | cut -f1 | xargs svc files rm'],
  run: (ctx, [ids]) => deleteEach(ctx, ids as string[], deleteFile),
});
