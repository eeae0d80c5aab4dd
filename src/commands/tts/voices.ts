import { defineCommand } from '../../cmdutil/command.js';
import { listVoices } from '../../endpoints/voices.js';

export default defineCommand({
  examples: ['svc tts voices', 'svc tts voices --json'],
  async run(ctx) {
    const voices = await listVoices(await ctx.http());
    if (ctx.out.json) {
      for (const v of voices) ctx.out.printJsonLine(v);
      return 0;
    }
    await ctx.out.table(
      voices,
      [
        { header: 'VOICE', get: (v) => v.voice_id, keep: true },
        { header: 'NAME', get: (v) => v.name ?? '' },
        { header: 'LANGUAGE', get: (v) => v.language ?? '' },
      ],
      { emptyMessage: 'no voices' },
    );
    return 0;
  },
});
