import { defineCommand } from '../../cmdutil/command.js';
import { firstPageQuery, listRows, pageFlags } from '../../cmdutil/paginate.js';
import type { Agent } from '../../endpoints/agents.js';
import { AGENTS } from '../../endpoints/resources.js';

export default defineCommand({
  description:
    'The API has no cursor for agents: one reply of --limit agents (default 100); --all asks for the most ' +
    'one reply holds (1000).',
  options: pageFlags(AGENTS),
  jsonFields: AGENTS.fields,
  examples: ['svc agents list', 'svc agents list --json --jq .agent_id'],
  async run(ctx, _args, opts) {
    return listRows<Agent>(ctx, AGENTS, firstPageQuery(AGENTS, opts), opts, {
      columns: () => [
        { header: 'ID', get: (a) => a.agent_id },
        { header: 'NAME', get: (a) => a.name },
        { header: 'VOICE', get: (a) => (a.voice as { voice_id?: string } | null | undefined)?.voice_id ?? '' },
        { header: 'TOOLS', get: (a) => (Array.isArray(a.tools) ? a.tools.length : 0), align: 'right' },
        { header: 'UPDATED', get: (a) => a.updated_at ?? '' },
      ],
    });
  },
});
