import { defineCommand } from '../../cmdutil/command.js';
import { findRecord, logDir } from '../../apilog/log.js';
import { ExitCode } from '../../core/errors.js';

/** WebSocket close codes worth a word (RFC 6455). */
const CLOSE_CODES: Record<number, string> = {
  1000: 'normal',
  1001: 'going away',
  1006: 'connection cut',
  1008: 'policy',
  1011: 'server error',
};

export default defineCommand({
  description:
    "The call's details, then the prompt and the answer as they were (capped at 8192 characters each when " +
    'logged); a realtime session as its ' +
    'conversation turn by turn (user, assistant, tool calls). --json: the record as stored.',
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
      [
        'close code',
        rec.close_code === undefined
          ? undefined
          : `${rec.close_code}${CLOSE_CODES[rec.close_code] ? ` (${CLOSE_CODES[rec.close_code]})` : ''}`,
      ],
      ['request id', rec.request_id],
      ['model', rec.model],
      [
        'tokens',
        rec.usage
          ? `${rec.usage.input_tokens} in + ${rec.usage.output_tokens} out = ${rec.usage.total_tokens}`
          : undefined,
      ],
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
    if (rec.turns?.length) for (const t of rec.turns) section(t.role, t.text);
    else {
      // a streaming TTS session's prompt is the text it spoke; a streaming STT session's answer is its transcript
      section(rec.method === 'WS' && rec.path === '/v1/tts' ? 'text' : 'user', rec.prompt);
      section(rec.method === 'WS' && rec.path === '/v1/stt' ? 'transcript' : 'assistant', rec.answer);
    }
    if (rec.truncated) ctx.out.line('\n(cut at 8192 characters when logged)');
    return 0;
  },
});
