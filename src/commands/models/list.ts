import { defineCommand } from '../../cmdutil/command.js';
import { listRows } from '../../cmdutil/paginate.js';
import { oneOf } from '../../core/validate.js';
import {
  MODEL_KINDS,
  dollarsPerImage,
  dollarsPerMillionTokens,
  formatDollars,
  type Model,
  type ModelKind,
} from '../../endpoints/models.js';
import { MODELS, MODELS_OF_KIND } from '../../endpoints/resources.js';
import type { Column } from '../../term/output.js';
import { isoTime } from '../../core/iso-time.js';

export default defineCommand({
  jsonFields: async () => [
    ...new Set((await Promise.all([MODELS, ...Object.values(MODELS_OF_KIND)].map((l) => l.fields()))).flat()),
  ],
  description:
    'Without --kind: every model the key can use. With --kind: the full records of that kind, prices in ' +
    'dollars per million tokens (per image for image models).',
  options: [
    {
      flags: '--kind <kind>',
      description: `model kind: ${MODEL_KINDS.join(', ')}`,
      parse: oneOf(MODEL_KINDS),
      choices: MODEL_KINDS,
    },
  ],
  examples: ['svc models list', 'svc models list --kind language', 'svc models list --kind image --json'],
  async run(ctx, _args, opts) {
    const list = opts.kind ? MODELS_OF_KIND[opts.kind] : MODELS;
    return listRows<Model>(ctx, list, {}, {}, { columns: () => columnsFor(opts.kind) });
  },
});

export function columnsFor(kind: ModelKind | undefined): Column<Model>[] {
  const id: Column<Model> = { header: 'ID', get: (m) => m.id };
  const aliases: Column<Model> = { header: 'ALIASES', get: (m) => (m.aliases ?? []).join(', ') };
  const perM = (field: string, header: string): Column<Model> => ({
    header,
    get: (m) => formatDollars(dollarsPerMillionTokens(m[field])),
    align: 'right',
  });
  switch (kind) {
    case undefined:
      return [
        id,
        aliases,
        { header: 'OWNER', get: (m) => m.owned_by, optional: 1 },
        {
          header: 'CREATED',
          get: (m) => isoTime(m.created * 1000).slice(0, 10),
          keep: true,
          optional: 2,
        },
      ];
    case 'language':
      return [
        id,
        aliases,
        { header: 'INPUT', get: (m) => (m.input_modalities as string[] | undefined)?.join('+') },
        perM('prompt_text_token_price', 'IN $/1M'),
        perM('cached_prompt_text_token_price', 'CACHED $/1M'),
        perM('completion_text_token_price', 'OUT $/1M'),
      ];
    case 'embedding':
      return [id, aliases, perM('prompt_text_token_price', 'IN $/1M')];
    case 'image':
      return [
        id,
        aliases,
        { header: '$/IMAGE', get: (m) => formatDollars(dollarsPerImage(m.image_price)), align: 'right' },
        { header: 'MAX PROMPT', get: (m) => m.max_prompt_length, align: 'right' },
      ];
    case 'video':
      return [
        id,
        aliases,
        { header: 'INPUT', get: (m) => (m.input_modalities as string[] | undefined)?.join('+') },
        { header: 'OUTPUT', get: (m) => (m.output_modalities as string[] | undefined)?.join('+') },
      ];
  }
}
