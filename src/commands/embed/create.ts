import type { EmbeddingEntry } from '../../endpoints/embeddings.js';
import { defineCommand } from '../../cmdutil/command.js';
import { UsageError } from '../../core/errors.js';
import { OUTPUT, modelFlag } from '../../cmdutil/flag-sets.js';
import { fillBody, type RequestTable } from '../../core/request-table.js';
import { integer, oneOf, require } from '../../core/validate.js';
import { OPERATIONS } from 'svc-formats/api-facts';

const ENCODING_FORMATS = OPERATIONS.createEmbeddings.fields['body.encoding_format'].enum;

export const DEFAULT_EMBEDDING_MODEL = 'svc-embed-1';
/** vector sizes of the embedding models the CLI knows (the catalogue's); other models are checked by the server */
export const EMBEDDING_SIZES: Record<string, number> = { 'svc-embed-1': 256 };

export const EMBED_TABLE = {
  operation: 'POST /v1/embeddings',
  rows: [
    modelFlag(`embedding model (default ${DEFAULT_EMBEDDING_MODEL})`),
    {
      flags: '--dimensions <n>',
      description: "size of the vectors (at least 1, at most the model's size, 256 for svc-embed-1)",
      parse: integer({ min: 1, int32: true }),
      field: 'dimensions',
    },
    {
      flags: '--encoding-format <format>',
      description: 'float or base64 (little-endian float32)',
      parse: oneOf(ENCODING_FORMATS),
      choices: ENCODING_FORMATS,
      field: 'encoding_format',
    },
    { flags: '--user <id>', description: 'end-user identifier for abuse monitoring', field: 'user' },
    OUTPUT.usage,
  ],
  inputs: { input: 'TEXT arguments, or one input per stdin line' },
} as const satisfies RequestTable;

export default defineCommand({
  description:
    'Inputs are the arguments, or else one per line of stdin. Any number of inputs: they are sent in ' +
    'requests of at most 128 and re-joined in input order. Prints one vector per line (a JSON array of ' +
    'numbers, or the base64 string with --encoding-format base64); --json prints each embedding object as ' +
    'the API sent it, one per line, its `index` being the position in the whole input.',
  args: [{ name: 'text', description: 'texts to embed (default: one per stdin line)', variadic: true }],
  options: EMBED_TABLE.rows,
  requests: [EMBED_TABLE],
  examples: [
    'svc embed "a red fox" "a brown dog"',
    'svc embed < sentences.txt > vectors.jsonl',
    'svc embed --dimensions 64 --json "hello"',
  ],
  async run(ctx, [words], opts) {
    const model = opts.model ?? DEFAULT_EMBEDDING_MODEL;
    const size = EMBEDDING_SIZES[model];
    require(opts.dimensions === undefined ||
      size === undefined ||
      opts.dimensions <=
        size, '--dimensions', opts.dimensions, `a whole number from 1 to ${size} (the size of ${model})`);
    let inputs = (words as string[] | undefined) ?? [];
    if (!inputs.length) {
      if (ctx.streams.stdin.isTTY)
        throw new UsageError('no input: give texts as arguments, or pipe one text per line on stdin');
      const text = await ctx.readStdin();
      inputs = text.replace(/\r?\n$/, '').split(/\r?\n/);
      if (text === '') inputs = [];
    }
    if (!inputs.length) throw new UsageError('no input: give texts as arguments, or pipe one text per line on stdin');
    const empty = inputs.findIndex((s) => s.trim() === '');
    if (empty >= 0) {
      throw new UsageError(
        words?.length
          ? `TEXT: argument ${empty + 1} is empty: every input must have text`
          : `stdin: line ${empty + 1} is empty: every line is one input and must have text`,
      );
    }
    const { embedAll } = await import('../../endpoints/embeddings.js');
    const spinner = await ctx.out.spinner(`embedding ${inputs.length} input${inputs.length === 1 ? '' : 's'}`);
    let res: Awaited<ReturnType<typeof embedAll>>;
    try {
      res = await embedAll(await ctx.http(), fillBody(EMBED_TABLE.rows, opts, { model, input: inputs }), {
        signal: ctx.signal,
        onBatch: (done, total) => spinner.update(`embedded ${done}/${total}`),
      });
    } finally {
      spinner.stop();
    }
    for (const e of res.data as EmbeddingEntry[]) {
      if (ctx.out.json) ctx.out.printJsonLine(e);
      else ctx.out.line(typeof e.embedding === 'string' ? e.embedding : JSON.stringify(e.embedding));
    }
    if (opts.usage) ctx.out.asked(ctx.out.ce.dim(`usage: ${res.usage.prompt_tokens} tokens · ${res.model ?? ''}`));
    return 0;
  },
});
