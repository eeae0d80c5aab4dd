import { defineCommand } from '../../cmdutil/command.js';
import { MODEL_FIELDS } from '../../endpoints/resources.js';
import { oneOf } from '../../core/validate.js';
import {
  MODEL_KINDS,
  dollarsPerImage,
  dollarsPerMillionTokens,
  formatDollars,
  getModel,
} from '../../endpoints/models.js';
import { isoTime } from '../../core/iso-time.js';

const PRICE_FIELDS = [
  'prompt_text_token_price',
  'cached_prompt_text_token_price',
  'prompt_image_token_price',
  'completion_text_token_price',
  'prompt_text_token_price_long_context',
  'cached_prompt_text_token_price_long_context',
  'completion_text_token_price_long_context',
  'generated_image_token_price',
];

export default defineCommand({
  jsonFields: MODEL_FIELDS,
  args: [{ name: 'id', description: 'model id or alias', required: true }],
  options: [
    {
      flags: '--kind <kind>',
      description: `model kind: ${MODEL_KINDS.join(', ')} (full record with prices)`,
      parse: oneOf(MODEL_KINDS),
      choices: MODEL_KINDS,
    },
  ],
  examples: ['svc models get svc-4 --kind language', 'svc models get svc-latest'],
  async run(ctx, [id], opts) {
    const model = await getModel(await ctx.http(), id, opts.kind);
    if (ctx.out.json) {
      ctx.out.printJson(model);
      return 0;
    }
    const pairs: [string, unknown][] = [];
    for (const [k, v] of Object.entries(model)) {
      if (PRICE_FIELDS.includes(k)) pairs.push([`${k} ($/1M tokens)`, formatDollars(dollarsPerMillionTokens(v))]);
      else if (k === 'image_price') pairs.push(['image_price ($/image)', formatDollars(dollarsPerImage(v))]);
      else if (k === 'search_price')
        pairs.push(['search_price ($/1M searches)', formatDollars(dollarsPerMillionTokens(v))]);
      else if (k === 'created') pairs.push([k, isoTime((v as number) * 1000)]);
      else pairs.push([k, Array.isArray(v) ? v.join(', ') : v]);
    }
    ctx.out.details(pairs);
    return 0;
  },
});
