import { defineCommand } from '../../cmdutil/command.js';
import { firstPageQuery, listRows, pageFlags } from '../../cmdutil/paginate.js';
import type { PhoneNumber } from '../../endpoints/phone.js';
import { PHONE_NUMBERS } from '../../endpoints/resources.js';

export default defineCommand({
  jsonFields: PHONE_NUMBERS.fields,
  description:
    'The v1 list has no cursor: one reply of --limit numbers (default 100); --all asks for the most one ' +
    'reply holds (1000).',
  options: pageFlags(PHONE_NUMBERS),
  examples: ['svc phone list', 'svc phone list --json'],
  async run(ctx, _args, opts) {
    return listRows<PhoneNumber>(ctx, PHONE_NUMBERS, firstPageQuery(PHONE_NUMBERS, opts), opts, {
      columns: () => [
        { header: 'ID', get: (n) => n.phone_number_id },
        { header: 'NUMBER', get: (n) => n.phone_number, keep: true },
        { header: 'NAME', get: (n) => n.name },
        { header: 'AGENT', get: (n) => n.agent_id ?? '', keep: true },
      ],
    });
  },
});
