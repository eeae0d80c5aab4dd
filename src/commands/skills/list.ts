import { defineCommand } from '../../cmdutil/command.js';
import { oneOf } from '../../core/validate.js';
import { formatUnixTime, type Column } from '../../term/output.js';
import { firstPageQuery, listRows, pageFlags } from '../../cmdutil/paginate.js';
import { SKILLS } from '../../endpoints/resources.js';
import type { Skill } from '../../endpoints/skills.js';
import { OPERATIONS } from 'svc-formats/api-facts';

const ORDERS = OPERATIONS.listSkills.fields['query.order'].enum;

const columns = (): Column<Skill>[] => [
  { header: 'ID', get: (s) => s.id },
  { header: 'NAME', get: (s) => s.name },
  { header: 'DESCRIPTION', get: (s) => s.description },
  { header: 'CREATED', get: (s) => formatUnixTime(s.created_at) },
];

export default defineCommand({
  jsonFields: SKILLS.fields,
  description:
    'One page by default; --page-token (or --after, the same: a skill id) continues from a previous page, ' +
    '--all prints every page as it arrives.',
  options: [
    ...pageFlags(SKILLS, 'start after this skill id (the last_id of the previous page; the same as --page-token)'),
    { flags: '--order <order>', description: 'asc or desc (default desc)', parse: oneOf(ORDERS), choices: ORDERS },
  ],
  examples: ['svc skills list', 'svc skills list --all --order asc --json'],
  async run(ctx, _args, opts) {
    const query = { ...firstPageQuery(SKILLS, opts), order: opts.order };
    return listRows<Skill>(ctx, SKILLS, query, opts, { columns });
  },
});
