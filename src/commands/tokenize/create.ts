import { defineCommand } from '../../core/command.js';
import { UsageError } from '../../core/errors.js';
import { DEFAULT_CHAT_MODEL } from '../chat/request.js';

interface Opts {
  model?: string;
  count?: boolean;
}

export default defineCommand<Opts>({
  summary: 'Split text into the model\'s tokens (id, token, bytes)',
  description: 'TEXT, or all of stdin. Prints a table of token id, token (quoted, so spaces and newlines show) and its UTF-8 bytes in hex; --count prints only the number of tokens; --json the API\'s reply.',
  args: [{ name: 'text', description: 'the text (default: stdin)' }],
  options: [
    { flags: '-m, --model <id>', description: `model whose tokenizer to use (default: the profile's model, else ${DEFAULT_CHAT_MODEL})` },
    { flags: '--count', description: 'print only the number of tokens' },
  ],
  examples: ['svc tokenize "Hello, world"', 'svc tokenize --count < prompt.txt'],
  async run(ctx, [arg], opts) {
    let text: string | undefined = arg;
    if (text === undefined) {
      if (ctx.streams.stdin.isTTY) throw new UsageError('no text: give it as an argument or pipe it on stdin');
      text = await ctx.readStdin();
    }
    if (text === '') throw new UsageError('no text: the text to tokenize is empty');
    const { tokenizeText } = await import('../../api/tokenize.js');
    const res = await tokenizeText(await ctx.http(), { text, model: opts.model ?? ctx.config().model ?? DEFAULT_CHAT_MODEL }, ctx.signal);
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
