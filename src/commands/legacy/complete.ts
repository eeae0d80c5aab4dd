import { createComplete, humanAssistantPrompt } from '../../endpoints/legacy.js';
import { defineCommand } from '../../cmdutil/command.js';
import { modelFlag, resolveModel, sampling } from '../../cmdutil/flag-sets.js';
import { fillBody, type RequestTable } from '../../core/request-table.js';
import { readPrompt } from '../../cmdutil/text-input.js';
import { integer, require } from '../../core/validate.js';
import { withReasoningHint } from './hint.js';

export const DEFAULT_MAX_TOKENS_TO_SAMPLE = 256;

export const COMPLETE_TABLE = {
  operation: 'POST /v1/complete',
  rows: [
    modelFlag(),
    {
      flags: '--max-tokens-to-sample <n>',
      description: 'cap on generated tokens (1 to 2147483647)',
      default: DEFAULT_MAX_TOKENS_TO_SAMPLE,
      parse: integer({ min: 1, int32: true }),
      field: 'max_tokens_to_sample',
    },
    ...sampling(['temperature', 'topP', 'topK', 'stop'], { stop: 'stop_sequences' }),
    { flags: '--raw', description: 'PROMPT is already "\\n\\nHuman: …\\n\\nAssistant:" text', reaches: ['prompt'] },
  ],
  inputs: { prompt: 'PROMPT words joined with piped stdin, wrapped as a human turn' },
} as const satisfies RequestTable;

export default defineCommand({
  description:
    'PROMPT (joined with piped stdin) is wrapped as "\\n\\nHuman: PROMPT\\n\\nAssistant:" unless --raw says ' +
    'it is already in that format. Legacy: reasoning models refuse it.',
  args: [{ name: 'prompt', description: 'the human turn', variadic: true }],
  options: COMPLETE_TABLE.rows,
  requests: [COMPLETE_TABLE],
  examples: [
    'svc legacy complete "What is a monad?"',
    'printf "\\n\\nHuman: hi\\n\\nAssistant:" | svc legacy complete --raw',
  ],
  async run(ctx, [words], opts) {
    const text = await readPrompt(ctx, (words as string[] | undefined) ?? [], 'svc legacy complete');
    // the prompt's leading blank lines do not survive argument joining and trimming: put them back
    const prompt = opts.raw ? (text.startsWith('Human:') ? `\n\n${text}` : text) : humanAssistantPrompt(text);
    require(!opts.raw || (prompt.includes('\n\nHuman:') && /\n\nAssistant:\s*$/.test(prompt)), '--raw', JSON.stringify(
      prompt.slice(0, 40),
    ), 'a prompt with "\\n\\nHuman:" turns that ends with "\\n\\nAssistant:"');
    const body = fillBody(COMPLETE_TABLE.rows, opts, { model: resolveModel(ctx, opts.model), prompt } as Record<
      string,
      unknown
    >);
    let res;
    try {
      res = await createComplete(await ctx.http(), body, ctx.signal);
    } catch (err) {
      throw withReasoningHint(err);
    }
    if (ctx.out.json) ctx.out.printJson(res);
    else ctx.out.line(res.completion.replace(/^ /, '').replace(/\n$/, ''));
    if (!ctx.out.json && res.stop_reason === 'max_tokens')
      ctx.out.info(ctx.out.ce.dim('(cut off at --max-tokens-to-sample)'));
    return 0;
  },
});
