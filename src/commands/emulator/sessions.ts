import { defineCommand } from '../../cmdutil/command.js';
import { regex } from '../../core/validate.js';
import { EmulatorAdmin, type LoggedRequest } from '../../endpoints/emulator.js';

const time = (ms: number) => new Date(ms).toISOString().slice(11, 23);

/** `type×n` for each event type, in the order they first went that way */
const events = (m: Record<string, number> | undefined) =>
  Object.entries(m ?? {})
    .map(([type, n]) => `${type}×${n}`)
    .join(' ');

/** how the session ended: `open`, the refusal's status, `cut` before any reply, or the close code and reason */
function ending(r: LoggedRequest): string {
  if (r.status === undefined) return 'open';
  if (r.status === 0) return 'cut';
  if (r.status !== 101) return `refused ${r.status}`;
  const code = r.ws?.close_code;
  return `closed ${code ?? '-'}${r.ws?.close_reason ? ` ${r.ws.close_reason}` : ''}`;
}

export default defineCommand({
  description:
    'One row per WebSocket session the emulator accepted or refused (realtime, streaming TTS and STT): when it ' +
    'opened, the path, the session id, how it ended (open, closed CODE REASON, refused STATUS, cut), how long it ' +
    'lasted, and the event types each way with their counts. A table on a terminal, tab-separated in a pipe; ' +
    '--json prints the request log records of the sessions (`ws`: session_id, events_in, events_out, close_code, ' +
    'close_reason).',
  options: [{ flags: '--path <regex>', description: 'only paths matching (e.g. ^/v1/realtime)', parse: regex() }],
  examples: ['svc emulator sessions', 'svc emulator sessions --path ^/v1/realtime --json'],
  async run(ctx, _args, opts) {
    const admin = new EmulatorAdmin(
      await ctx.http({ requireKey: false }),
      ctx.env.SVC_EMULATOR_ADMIN_TOKEN,
      ctx.signal,
    );
    const rows = (await admin.requests({ path: opts.path })).filter((r) => r.method === 'WS');
    if (ctx.out.json) {
      for (const r of rows) ctx.out.printJsonLine(r);
      return 0;
    }
    const columns = [
      { header: 'TIME', get: (r: LoggedRequest) => time(r.time) },
      { header: 'PATH', get: (r: LoggedRequest) => r.path },
      { header: 'SESSION', get: (r: LoggedRequest) => r.ws?.session_id ?? '-' },
      { header: 'END', get: ending },
      { header: 'MS', get: (r: LoggedRequest) => r.duration_ms ?? '-', align: 'right' as const },
      { header: 'IN', get: (r: LoggedRequest) => events(r.ws?.events_in) || '-' },
      { header: 'OUT', get: (r: LoggedRequest) => events(r.ws?.events_out) || '-' },
      { header: 'REQUEST ID', get: (r: LoggedRequest) => r.id, keep: true },
    ];
    if (!ctx.out.stdoutIsTTY) {
      for (const r of rows) ctx.out.line(columns.map((c) => String(c.get(r))).join('\t'));
      return 0;
    }
    await ctx.out.table(rows, columns, { emptyMessage: 'no WebSocket sessions logged' });
    return 0;
  },
});
