import { createTextCompletion } from '../../api/legacy.js';
import { defineCommand } from '../../core/command.js';
import { integer, number, repeatable } from '../../core/validate.js';
import { readPrompt } from '../chat/create.js';
import { DEFAULT_CHAT_MODEL } from '../chat/request.js';
import { withReasoningHint } from './hint.js';

interface Opts {
  model?: string;
  maxTokens?: number;
  n?: number;
  stop?: string[];
  echo?: boolean;
  suffix?: string;
  seed?: number;
  temperature?: number;
  topP?: number;
  usage?: boolean;
}

export const MAX_N = 128;

export default defineCommand<Opts>({
  summary: 'Text completion (POST /v1/completions; not for reasoning models)',
  description: 'Continues PROMPT (joined with piped stdin). Legacy: replaced by `svc chat`; reasoning models refuse it. Each choice is printed on its own (separated by a line `--- choice N ---` when -n > 1).',
  args: [{ name: 'prompt', description: 'the text to continue', variadic: true }],
  options: [
    { flags: '-m, --model <id>', description: `model id or alias (default: the profile's model, else ${DEFAULT_CHAT_MODEL})` },
    { flags: '--max-tokens <n>', description: 'cap on generated tokens (1 to 2147483647; the server default is 16)', parse: integer({ min: 1, int32: true }) },
    { flags: '-n, --n <n>', description: `number of completions (1-${MAX_N})`, parse: integer({ min: 1, max: MAX_N }) },
    { flags: '--stop <sequence>', description: 'stop sequence (repeatable, at most 4)', parse: repeatable(undefined, { max: 4 }) },
    { flags: '--echo', description: 'repeat the prompt before the completion' },
    { flags: '--suffix <text>', description: 'text that comes after the completion' },
    { flags: '--seed <n>', description: 'best-effort deterministic sampling (32-bit integer)', parse: integer({ int32: true }) },
    { flags: '-t, --temperature <n>', description: 'sampling temperature (0-2)', parse: number({ min: 0, max: 2 }) },
    { flags: '--top-p <n>', description: 'nucleus sampling (greater than 0, at most 1)', parse: number({ min: 0, minExclusive: true, max: 1 }) },
    { flags: '-u, --usage', description: 'print token usage on stderr' },
  ],
  examples: ['svc legacy completions "Once upon a time" --max-tokens 50', 'svc legacy completions "1, 2, 3," -n 3 --stop "\\n"'],
  async run(ctx, [words], opts) {
    const prompt = await readPrompt(ctx, (words as string[] | undefined) ?? []);
    const body: Record<string, unknown> = { model: opts.model ?? ctx.config().model ?? DEFAULT_CHAT_MODEL, prompt };
    const set = (k: string, v: unknown) => {
      if (v !== undefined) body[k] = v;
    };
    set('max_tokens', opts.maxTokens);
    set('n', opts.n);
    set('stop', opts.stop);
    if (opts.echo) body.echo = true;
    set('suffix', opts.suffix);
    set('seed', opts.seed);
    set('temperature', opts.temperature);
    set('top_p', opts.topP);
    let res;
    try {
      res = await createTextCompletion(await ctx.http(), body, ctx.signal);
    } catch (err) {
      throw withReasoningHint(err);
    }
    if (ctx.out.json) {
      ctx.out.printJson(res);
      return 0;
    }
    const many = res.choices.length > 1;
    for (const c of res.choices) {
      if (many) ctx.out.line(`--- choice ${c.index} ---`);
      ctx.out.line(c.text.replace(/\n$/, ''));
    }
    if (res.choices.some((c) => c.finish_reason === 'length')) ctx.out.info(ctx.out.ce.dim('(cut off at --max-tokens)'));
    if (opts.usage && res.usage) ctx.out.info(ctx.out.ce.dim(`usage: ${res.usage.prompt_tokens} prompt + ${res.usage.completion_tokens} completion = ${res.usage.total_tokens} tokens · ${res.model}`));
    return 0;
  },
});
