import { defineCommand } from '../../cmdutil/command.js';
import { UsageError } from '../../core/errors.js';
import { DEFAULT_LANGUAGE_MODEL, modelFlag, resolveModel } from '../../cmdutil/flag-sets.js';
import type { RequestTable } from '../../core/request-table.js';

export const TOKENIZE_TABLE = {
  operation: 'POST /v1/tokenize-text',
  rows: [
    modelFlag(`model whose tokenizer to use (default: the profile's model, else ${DEFAULT_LANGUAGE_MODEL})`),
    { flags: '--count', description: 'print only the number of tokens' },
  ],
  inputs: { text: 'TEXT, or all of stdin (without its final newline)' },
} as const satisfies RequestTable;

export default defineCommand({
  description:
    'TEXT, or all of stdin (its final newline dropped). Prints a table of token id, token (quoted, so spaces ' +
    'and newlines show) and its UTF-8 bytes in hex; --count prints only the number of tokens; --json the ' +
    "API's reply.",
  args: [
    { name: 'text', description: 'the text; several words are joined with spaces (default: stdin)', variadic: true },
  ],
  options: TOKENIZE_TABLE.rows,
  requests: [TOKENIZE_TABLE],
  examples: ['svc tokenize "Hello, world"', 'svc tokenize --count < prompt.txt'],
  async run(ctx, [arg], opts) {
    // bare words are one text, as with chat and embed: `svc tokenize hello world`
    let text: string | undefined = (arg as string[]).length ? (arg as string[]).join(' ') : undefined;
    if (text === undefined) {
      if (ctx.streams.stdin.isTTY) throw new UsageError('no text: give it as an argument or pipe it on stdin');
      // like $(…) in a shell: the newline that ends piped text is not part of it
      text = (await ctx.readStdin()).replace(/\r?\n$/, '');
    }
    if (text === '') throw new UsageError('no text: the text to tokenize is empty');
    const { tokenizeText } = await import('../../endpoints/tokenize.js');
    const res = await tokenizeText(await ctx.http(), { text, model: resolveModel(ctx, opts.model) }, ctx.signal);
    if (opts.count) {
      if (ctx.out.json) ctx.out.printJson({ count: res.token_ids.length });
      else ctx.out.line(String(res.token_ids.length));
      return 0;
    }
    if (ctx.out.json) {
      ctx.out.printJson(res);
      return 0;
    }
    await ctx.out.table(
      res.token_ids,
      [
        { header: 'ID', get: (t) => t.token_id, align: 'right' },
        { header: 'TOKEN', get: (t) => JSON.stringify(t.string_token) },
        { header: 'BYTES', get: (t) => t.token_bytes.map((b) => b.toString(16).padStart(2, '0')).join(' ') },
      ],
      { emptyMessage: 'no tokens' },
    );
    if (ctx.out.stdoutIsTTY) ctx.out.info(ctx.out.ce.dim(`${res.token_ids.length} tokens`));
    return 0;
  },
});
