import { outputPath } from '../../core/atomic-file.js';
import { defineCommand } from '../../cmdutil/command.js';
import { forceFlags } from '../../cmdutil/flag-sets.js';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { UsageError } from '../../core/errors.js';
import { getAgent } from '../../endpoints/agents.js';
import { ENV_OPTION } from './project.js';
import { pullAll } from './pull-all.js';

export default defineCommand({
  description:
    'One agent (ID): the file holds the agent exactly as the API sent it (every field, including agent_id), so ' +
    'that `svc agents push -f FILE` of the unchanged file sends nothing. Edit the fields name, instructions, tools, ' +
    'voice and collection_ids; agent_id, created_at and updated_at are read-only. ' +
    'Every agent (--all): into the project (svc agents init) found from here upward or given by --project: each ' +
    'agent of the team to its file (agents/NAME.json: the writable fields and phone_number, the v1 number ' +
    'assigned to it; server-only fields left out), agents new to the project added to svc-agents.json with their ' +
    'ids. With --env ENV the agents recorded for ENV are pulled and what differs from the base file goes to the ' +
    'overlay NAME.ENV.json. A value that a file gives as ${env:NAME} stays a reference (a secret is never written ' +
    'into a file; a warning says when the server holds another value), and a secret value met elsewhere is ' +
    'written as its reference. Files whose content is unchanged are not rewritten.',
  args: [{ name: 'id', description: 'agent id (without --all)' }],
  options: [
    {
      flags: '-o, --output <file>',
      description: 'write to this file (atomically) instead of stdout',
      parse: outputPath(),
    },
    ...forceFlags('an existing -o file'),
    { flags: '--all', description: 'every agent of the team into the project (its files and svc-agents.json)' },
    { ...ENV_OPTION, description: `${ENV_OPTION.description} (with --all)` },
    { flags: '--project <dir>', description: 'project folder (with --all; default: the project found from here)' },
  ],
  examples: [
    'svc agents pull agent_123 > agent.json',
    'svc agents pull agent_123 -o agent.json',
    'svc agents pull --all',
    'svc agents pull --all --env staging',
  ],
  async run(ctx, [id], opts) {
    if (opts.all) {
      if (id !== undefined) throw new UsageError(`${id} and --all: give an agent id or --all, not both`);
      if (opts.output !== undefined) throw new UsageError('-o and --all: --all writes the files of the project');
      return pullAll(ctx, opts.project, opts.env);
    }
    if (id === undefined) throw new UsageError('an agent id is required (or --all for every agent of a project)');
    if (opts.env !== undefined || opts.project !== undefined)
      throw new UsageError(`${opts.env !== undefined ? '--env' : '--project'} needs --all`);
    const agent = await getAgent(await ctx.http(), id);
    const text = `${JSON.stringify(agent, null, 2)}\n`;
    if (opts.output === undefined || opts.output === '-') {
      ctx.out.write(text);
      return 0;
    }
    await writeFileAtomic(opts.output, text, { replace: !!opts.force });
    ctx.out.info(`wrote agent ${agent.agent_id} to ${opts.output}`);
    return 0;
  },
});
