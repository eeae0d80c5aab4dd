import { getResponse, outputText, reasoningText, responseUsage } from '../../endpoints/responses.js';
import { JSON_FIELDS } from '../../endpoints/json-fields.js';
import { defineCommand } from '../../cmdutil/command.js';
import { formatUnixTime } from '../../term/output.js';

export default defineCommand({
  jsonFields: JSON_FIELDS['GET /v1/responses/{response_id}'],
  description:
    'Details on stdout (key/value lines), then the output text. --json prints the response object as the API sent it.',
  args: [{ name: 'id', description: 'response id', required: true }],
  examples: ['svc responses get 2b6c…', 'svc responses get 2b6c… --json | jq .usage'],
  async run(ctx, [id]) {
    const r = await getResponse(await ctx.http(), id);
    if (ctx.out.json) {
      ctx.out.printJson(r);
      return 0;
    }
    const calls = r.output.filter((i) => i.type === 'function_call');
    const usage = responseUsage(r.usage);
    ctx.out.details([
      ['id', r.id],
      ['status', r.status],
      ['model', r.model],
      ['created_at', formatUnixTime(r.created_at)],
      ['previous_response_id', r.previous_response_id ?? null],
      ['store', r.store],
      [
        'usage',
        usage ? `${usage.input_tokens} input + ${usage.output_tokens} output = ${usage.total_tokens} tokens` : null,
      ],
      ['tool_calls', calls.length ? calls.map((c) => `${c.name}(${c.arguments})`).join('; ') : undefined],
    ]);
    const reasoning = reasoningText(r);
    if (reasoning && ctx.out.stderrIsTTY) ctx.out.stderrWrite(`${ctx.out.ce.dim(reasoning)}\n`);
    const text = outputText(r);
    if (text) {
      ctx.out.line();
      ctx.out.line(text.replace(/\n$/, ''));
    }
    return 0;
  },
});
