import type { OptionValues } from '../../core/option-spec.js';
import { createTextCompletion, streamTextCompletion, type TextCompletionChunk } from '../../endpoints/legacy.js';
import type { Context } from '../../runtime/context.js';
import { defineCommand } from '../../cmdutil/command.js';
import { OUTPUT, modelFlag, resolveModel, sampling } from '../../cmdutil/flag-sets.js';
import { fillBody, type RequestTable } from '../../core/request-table.js';
import { readPrompt } from '../../cmdutil/text-input.js';
import { integer, repeatable, require } from '../../core/validate.js';
import { withReasoningHint } from './hint.js';

type Opts = OptionValues<typeof COMPLETIONS_TABLE.rows>;

export const MAX_N = 128;

export const COMPLETIONS_TABLE = {
  operation: 'POST /v1/completions',
  rows: [
    modelFlag(),
    {
      flags: '--prompt <text>',
      description: 'a prompt of a batch (repeatable; sent as an array, completions printed per prompt)',
      parse: repeatable(),
      reaches: ['prompt'],
    },
    {
      flags: '--max-tokens <n>',
      description: 'cap on generated tokens (1 to 2147483647; the server default is 16)',
      parse: integer({ min: 1, int32: true }),
      field: 'max_tokens',
    },
    {
      flags: '-n, --n <n>',
      description: `number of completions per prompt (1-${MAX_N})`,
      parse: integer({ min: 1, max: MAX_N }),
      field: 'n',
    },
    ...sampling(['stop']),
    { flags: '--echo', description: 'repeat the prompt before the completion', field: 'echo' },
    { flags: '--suffix <text>', description: 'text that comes after the completion', field: 'suffix' },
    ...sampling(['seed', 'temperature', 'topP']),
    OUTPUT.usage,
    {
      flags: '--stream',
      description: 'print the text as it is generated (server-sent events; --json: one chunk per line)',
      field: 'stream',
      reaches: ['stream_options'],
    },
  ],
  inputs: { prompt: 'PROMPT words joined with piped stdin' },
} as const satisfies RequestTable;

export default defineCommand({
  description:
    'Continues PROMPT (joined with piped stdin), or each --prompt of a batch. Legacy: replaced by `svc ' +
    'chat`; reasoning models refuse it. Each choice is printed on its own (separated by a line `--- choice N ' +
    '---` when there is more than one).',
  args: [{ name: 'prompt', description: 'the text to continue', variadic: true }],
  options: COMPLETIONS_TABLE.rows,
  requests: [COMPLETIONS_TABLE],
  examples: [
    'svc legacy completions "Once upon a time" --max-tokens 50',
    'svc legacy completions "Once upon a time" --stream',
    'svc legacy completions "1, 2, 3," -n 3 --stop $\'\\n\'',
    'svc legacy completions --prompt "Roses are" --prompt "Violets are"',
  ],
  async run(ctx, [words], opts) {
    let prompt: string | string[];
    if (opts.prompt) {
      require(!(words as string[] | undefined)?.length, '--prompt', opts
        .prompt[0], 'not together with PROMPT arguments');
      require(opts.prompt.every((p) => p !== ''), '--prompt', '', 'a non-empty prompt');
      prompt = opts.prompt;
    } else prompt = await readPrompt(ctx, (words as string[] | undefined) ?? [], 'svc legacy completions');
    const body = fillBody(COMPLETIONS_TABLE.rows, opts, { model: resolveModel(ctx, opts.model), prompt } as Record<
      string,
      unknown
    >);
    if (opts.stream) return stream(ctx, body, opts);
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
    if (res.choices.some((c) => c.finish_reason === 'length'))
      ctx.out.info(ctx.out.ce.dim('(cut off at --max-tokens)'));
    if (opts.usage && res.usage)
      ctx.out.asked(
        ctx.out.ce.dim(
          `usage: ${res.usage.prompt_tokens} prompt + ${res.usage.completion_tokens} completion = ` +
            `${res.usage.total_tokens} tokens · ${res.model}`,
        ),
      );
    return 0;
  },
});

/** --stream: text as it arrives; a `--- choice N ---` line whenever another choice of several continues. */
async function stream(ctx: Context, body: Record<string, unknown>, opts: Opts): Promise<number> {
  if (opts.usage) body.stream_options = { include_usage: true };
  const many = (Array.isArray(body.prompt) ? body.prompt.length : 1) * ((body.n as number | undefined) ?? 1) > 1;
  let current: number | undefined;
  let open = false;
  let cut = false;
  let usage: TextCompletionChunk['usage'];
  let model = '';
  try {
    for await (const chunk of streamTextCompletion(await ctx.http(), body, ctx.signal)) {
      if (ctx.out.json) {
        ctx.out.printJsonLine(chunk);
        continue;
      }
      model = chunk.model ?? model;
      if (chunk.usage) usage = chunk.usage;
      for (const c of chunk.choices ?? []) {
        if (c.index !== current && many && c.text) {
          if (open) ctx.out.write('\n');
          ctx.out.line(`--- choice ${c.index} ---`);
          current = c.index;
          open = false;
        }
        if (c.text) {
          ctx.out.write(c.text);
          open = !c.text.endsWith('\n');
        }
        if (c.finish_reason === 'length') cut = true;
      }
    }
  } catch (err) {
    if (open) ctx.out.write('\n');
    throw withReasoningHint(err);
  }
  if (open) ctx.out.write('\n');
  if (cut) ctx.out.info(ctx.out.ce.dim('(cut off at --max-tokens)'));
  if (opts.usage && usage)
    ctx.out.asked(
      ctx.out.ce.dim(
        `usage: ${usage.prompt_tokens} prompt + ${usage.completion_tokens} completion = ` +
          `${usage.total_tokens} tokens · ${model}`,
      ),
    );
  return 0;
}
