import { defineCommand } from '../../cmdutil/command.js';
import { JSON_FIELDS } from '../../endpoints/json-fields.js';
import { getFile } from '../../endpoints/files.js';
import { fileDetails } from './shared.js';

export default defineCommand({
  jsonFields: JSON_FIELDS['GET /v1/files/{file_id}'],
  args: [{ name: 'id', description: 'file id', required: true }],
  examples: ['svc files get file_abc123', 'svc files get file_abc123 --json'],
  async run(ctx, [id]) {
    const file = await getFile(await ctx.http(), id);
    if (ctx.out.json) ctx.out.printJson(file);
    else ctx.out.details(fileDetails(file));
    return 0;
  },
});
