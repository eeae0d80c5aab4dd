import { compactResponses } from '../../endpoints/responses.js';
import { defineCommand } from '../../cmdutil/command.js';
import { modelFlag } from '../../cmdutil/flag-sets.js';
import { fail } from '../../core/validate.js';
import { readInputFlag } from './input.js';

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

export default defineCommand({
  description:
    'Reads the conversation from --input (a JSON array of items, JSON lines such as `svc responses items ID ' +
    '--all --json`, or text) and prints the compaction output: a JSON array to pass verbatim as `svc ' +
    'responses create --input FILE "next turn"`. --json prints the whole compaction result.',
  options: [
    modelFlag('model used for the summary (required)'),
    { flags: '--input <file|->', description: 'the conversation to compact (required; - for stdin)' },
  ],
  examples: [
    'svc responses items 2b6c… --all --json | svc responses compact --model svc-4 --input - > ctx.json',
    'svc responses create --input ctx.json "and now?"',
  ],
  async run(ctx, _args, opts) {
    if (!opts.model) fail('--model', '(missing)', 'a model id (required)');
    if (!opts.input) fail('--input', '(missing)', 'a file or - for stdin (required)');
    const input = await readInputFlag(ctx, '--input', opts.input);
    const r = await compactResponses(await ctx.http(), { model: opts.model, input });
    if (ctx.out.json) ctx.out.printJson(r);
    else ctx.out.line(JSON.stringify(r.output));
    if (typeof r.usage?.dropped_message_count === 'number')
      ctx.out.info(
        `compacted ${plural(r.usage.dropped_message_count, 'message')} into ${plural(r.output.length, 'item')}`,
      );
    return 0;
  },
});
