import { defineCommand } from '../../cmdutil/command.js';
import { listRows } from '../../cmdutil/paginate.js';
import { VOICES } from '../../endpoints/resources.js';
import type { Voice } from '../../endpoints/voices.js';

export default defineCommand({
  jsonFields: VOICES.fields,
  examples: ['svc tts voices', 'svc tts voices --json'],
  async run(ctx) {
    return listRows<Voice>(
      ctx,
      VOICES,
      {},
      {},
      {
        columns: () => [
          { header: 'VOICE', get: (v) => v.voice_id, keep: true },
          { header: 'NAME', get: (v) => v.name ?? '' },
          { header: 'LANGUAGE', get: (v) => v.language ?? '' },
        ],
      },
    );
  },
});
