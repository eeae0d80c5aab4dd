import { createComplete, humanAssistantPrompt } from '../../api/legacy.js';
import { defineCommand } from '../../core/command.js';
import { integer, number, repeatable, require } from '../../core/validate.js';
import { readPrompt } from '../chat/create.js';
import { DEFAULT_CHAT_MODEL } from '../chat/request.js';
import { withReasoningHint } from './hint.js';

interface Opts {
  model?: string;
  maxTokensToSample: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  raw?: boolean;
}

export const DEFAULT_MAX_TOKENS_TO_SAMPLE = 256;

export default defineCommand<Opts>({
  summary: 'Human/assistant completion (POST /v1/complete; not for reasoning models)',
  description: 'PROMPT (joined with piped stdin) is wrapped as "\\n\\nHuman: PROMPT\\n\\nAssistant:" unless --raw says it is already in that format. Legacy: reasoning models refuse it.',
  args: [{ name: 'prompt', description: 'the human turn', variadic: true }],
  options: [
    { flags: '-m, --model <id>', description: `model id or alias (default: the profile's model, else ${DEFAULT_CHAT_MODEL})` },
    { flags: '--max-tokens-to-sample <n>', description: `cap on generated tokens (1 to 2147483647; default ${DEFAULT_MAX_TOKENS_TO_SAMPLE})`, default: DEFAULT_MAX_TOKENS_TO_SAMPLE, parse: integer({ min: 1, int32: true }) },
    { flags: '-t, --temperature <n>', description: 'sampling temperature (0-2)', parse: number({ min: 0, max: 2 }) },
    { flags: '--top-p <n>', description: 'nucleus sampling (greater than 0, at most 1)', parse: number({ min: 0, minExclusive: true, max: 1 }) },
    { flags: '--top-k <n>', description: 'only the k most likely tokens (1 to 2147483647)', parse: integer({ min: 1, int32: true }) },
    { flags: '--stop <sequence>', description: 'stop sequence (repeatable, at most 4)', parse: repeatable(undefined, { max: 4 }) },
    { flags: '--raw', description: 'PROMPT is already "\\n\\nHuman: …\\n\\nAssistant:" text' },
  ],
  examples: ['svc legacy complete "What is a monad?"', 'printf "\\n\\nHuman: hi\\n\\nAssistant:" | svc legacy complete --raw'],
  async run(ctx, [words], opts) {
    const text = await readPrompt(ctx, (words as string[] | undefined) ?? []);
    // the prompt's leading blank lines do not survive argument joining and trimming: put them back
    const prompt = opts.raw ? (text.startsWith('Human:') ? `\n\n${text}` : text) : humanAssistantPrompt(text);
    require(!opts.raw || (prompt.includes('\n\nHuman:') && /\n\nAssistant:\s*$/.test(prompt)), '--raw', JSON.stringify(prompt.slice(0, 40)), 'a prompt with "\\n\\nHuman:" turns that ends with "\\n\\nAssistant:"');
    const body: Record<string, unknown> = { model: opts.model ?? ctx.config().model ?? DEFAULT_CHAT_MODEL, prompt, max_tokens_to_sample: opts.maxTokensToSample };
    if (opts.temperature !== undefined) body.temperature = opts.temperature;
    if (opts.topP !== undefined) body.top_p = opts.topP;
    if (opts.topK !== undefined) body.top_k = opts.topK;
    if (opts.stop) body.stop_sequences = opts.stop;
    let res;
    try {
      res = await createComplete(await ctx.http(), body, ctx.signal);
    } catch (err) {
      throw withReasoningHint(err);
    }
    if (ctx.out.json) ctx.out.printJson(res);
    else ctx.out.line(res.completion.replace(/^ /, '').replace(/\n$/, ''));
    if (!ctx.out.json && res.stop_reason === 'max_tokens') ctx.out.info(ctx.out.ce.dim('(cut off at --max-tokens-to-sample)'));
    return 0;
  },
});
