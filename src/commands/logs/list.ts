import { defineCommand } from '../../cmdutil/command.js';
import { logDir, readRecords } from '../../apilog/log.js';
import { COMMAND_FILTER, MODEL_FILTER, SINCE_FLAG, sinceMs } from '../../cmdutil/log-flags.js';
import { integer } from '../../core/validate.js';

const oneLine = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

export default defineCommand({
  description:
    'Calls logged by every svc run (docs/logs.md), newest first. --grep searches the whole record (prompt, ' +
    'answer, path, error), case-insensitively. In a pipe: TSV rows; --json: each record as stored, one per ' +
    'line.',
  options: [
    SINCE_FLAG,
    MODEL_FILTER,
    COMMAND_FILTER,
    { flags: '--grep <text>', description: 'only calls whose record contains this text (any case)' },
    {
      flags: '--limit <n>',
      description: 'at most this many, newest first (1-1000000, default 50 on a terminal)',
      parse: integer({ min: 1, max: 1_000_000 }),
    },
  ],
  examples: ['svc logs', 'svc logs --since 7d --model svc-4', 'svc logs --grep invoice --json | jq -r .answer'],
  async run(ctx, _args, opts) {
    let rows = readRecords(logDir(ctx.env), {
      since: sinceMs(ctx.now(), opts.since),
      model: opts.model,
      command: opts.command,
      grep: opts.grep,
    }).reverse();
    const limit = opts.limit ?? (ctx.out.stdoutIsTTY && !ctx.out.json ? 50 : undefined);
    if (limit) rows = rows.slice(0, limit);
    if (ctx.out.json) {
      for (const r of rows) ctx.out.printJsonLine(r);
      return 0;
    }
    await ctx.out.table(
      rows,
      [
        // on a terminal the year goes (the ID carries it); a narrow one leaves out the columns the ID's record has
        {
          header: 'TIME',
          get: (r) => r.time.replace('T', ' ').slice(ctx.out.stdoutIsTTY ? 5 : 0, 19),
          keep: true,
          optional: 7,
        },
        { header: 'COMMAND', get: (r) => r.command, optional: 5 },
        { header: 'MODEL', get: (r) => r.model ?? '', optional: 4 },
        { header: 'STATUS', get: (r) => (r.status === null ? 'error' : r.status), align: 'right', optional: 3 },
        { header: 'MS', get: (r) => r.duration_ms, align: 'right', optional: 1 },
        { header: 'TOKENS', get: (r) => r.usage?.total_tokens ?? '', align: 'right', optional: 2 },
        {
          header: 'COST',
          get: (r) => (r.cost_usd === undefined ? '' : `$${r.cost_usd.toFixed(6)}`),
          align: 'right',
          optional: 6,
        },
        // a speech-to-text session has no prompt: its transcript says more than its path
        { header: 'PROMPT', get: (r) => oneLine(r.prompt ?? r.answer ?? `${r.method} ${r.path}`) },
        { header: 'ID', get: (r) => r.id },
      ],
      { emptyMessage: 'no calls logged (in this period)' },
    );
    return 0;
  },
});
