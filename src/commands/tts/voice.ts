import { defineCommand } from '../../cmdutil/command.js';
import { JSON_FIELDS } from '../../endpoints/json-fields.js';
import { getVoice } from '../../endpoints/voices.js';

export default defineCommand({
  jsonFields: JSON_FIELDS['GET /v1/tts/voices/{voice_id}'],
  args: [{ name: 'id', description: 'voice id (case-insensitive), built-in or custom', required: true }],
  examples: ['svc tts voice eve', 'svc tts voice Ara --json'],
  async run(ctx, [id]) {
    const voice = await getVoice(await ctx.http(), id);
    if (ctx.out.json) ctx.out.printJson(voice);
    else ctx.out.details(Object.entries(voice));
    return 0;
  },
});
