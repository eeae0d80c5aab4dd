import { outputPath } from '../../core/atomic-file.js';
import { defineCommand } from '../../cmdutil/command.js';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { getAgent } from '../../endpoints/agents.js';

export default defineCommand<{ output?: string }>({
  description:
    'The file holds the agent exactly as the API sent it (every field, including agent_id), so that ' +
    '`svc agents push -f FILE` of the unchanged file sends nothing. Edit the fields name, instructions, tools, ' +
    'voice and collection_ids; agent_id, created_at and updated_at are read-only.',
  args: [{ name: 'id', description: 'agent id', required: true }],
  options: [
    {
      flags: '-o, --output <file>',
      description: 'write to this file (atomically) instead of stdout',
      parse: outputPath(),
    },
  ],
  examples: ['svc agents pull agent_123 > agent.json', 'svc agents pull agent_123 -o agent.json'],
  async run(ctx, [id], opts) {
    const agent = await getAgent(await ctx.http(), id);
    const text = `${JSON.stringify(agent, null, 2)}\n`;
    if (opts.output === undefined || opts.output === '-') {
      ctx.out.write(text);
      return 0;
    }
    await writeFileAtomic(opts.output, text);
    ctx.out.info(`wrote agent ${agent.agent_id} to ${opts.output}`);
    return 0;
  },
});
