import { defineCommand } from '../../cmdutil/command.js';
import { firstPageQuery, listRows, pageFlags } from '../../cmdutil/paginate.js';
import type { CustomVoice } from '../../endpoints/custom-voices.js';
import { CUSTOM_VOICES } from '../../endpoints/resources.js';

export default defineCommand({
  jsonFields: CUSTOM_VOICES.fields,
  description:
    'One page by default; --page-token continues from the next_page_token of a previous page, --all prints ' +
    'every page as it arrives.',
  options: pageFlags(CUSTOM_VOICES),
  examples: ['svc custom-voices list', 'svc custom-voices list --all --json'],
  async run(ctx, _args, opts) {
    return listRows<CustomVoice>(ctx, CUSTOM_VOICES, firstPageQuery(CUSTOM_VOICES, opts), opts, {
      columns: () => [
        { header: 'VOICE', get: (v) => v.voice_id, keep: true },
        { header: 'NAME', get: (v) => v.name ?? '' },
        { header: 'CREATED', get: (v) => v.created_at ?? '' },
      ],
    });
  },
});
