import { defineCommand } from '../../core/command.js';
import { findRecord, logDir } from '../../core/call-log.js';
import { ExitCode } from '../../core/errors.js';

export default defineCommand({
  summary: 'Print one logged call (a conversation turn readably)',
  description: 'The call\'s details, then the prompt and the answer as they were (capped at 8192 characters each when logged). --json: the record as stored.',
  args: [{ name: 'id', description: 'the call id (svc logs)', required: true }],
  examples: ['svc logs show 20261122-213614-k3x9q0ab', 'svc logs show 20261122-213614-k3x9q0ab --json'],
  async run(ctx, [id]) {
    const rec = findRecord(logDir(ctx.env), id as string);
    if (!rec) {
      ctx.out.error(`no logged call ${id as string} (svc logs lists them)`);
      return ExitCode.notFound;
    }
    if (ctx.out.json) {
      ctx.out.printJson(rec);
      return 0;
    }
    const pairs: [string, unknown][] = [
      ['id', rec.id],
      ['time', rec.time],
      ['command', rec.command],
      ['request', `${rec.method} ${rec.path}`],
      ['status', rec.status ?? 'no reply'],
      ['duration', `${rec.duration_ms} ms`],
      ['request id', rec.request_id],
      ['model', rec.model],
      ['tokens', rec.usage ? `${rec.usage.input_tokens} in + ${rec.usage.output_tokens} out = ${rec.usage.total_tokens}` : undefined],
      ['cost', rec.cost_usd === undefined ? undefined : `$${rec.cost_usd.toFixed(6)}`],
      ['error', rec.error],
    ];
    ctx.out.details(pairs.filter(([, v]) => v !== undefined));
    const section = (title: string, text: string | undefined) => {
      if (text === undefined) return;
      ctx.out.line('');
      ctx.out.line(ctx.out.c.bold(`${title}:`));
      ctx.out.line(text.replace(/\n$/, ''));
    };
    section('user', rec.prompt);
    section('assistant', rec.answer);
    if (rec.truncated) ctx.out.line('\n(cut at 8192 characters when logged)');
    return 0;
  },
});
