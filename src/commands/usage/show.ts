import { defineCommand } from '../../cmdutil/command.js';
import { logDir, readRecords, type CallRecord } from '../../apilog/log.js';
import { COMMAND_FILTER, MODEL_FILTER, SINCE_FLAG, sinceMs } from '../../cmdutil/log-flags.js';
import { oneOf } from '../../core/validate.js';

const BY = ['day', 'model', 'command'] as const;
type By = (typeof BY)[number];

interface UsageRow {
  key: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cost_usd: number;
  /** calls with tokens but no known cost (the total cost leaves them out) */
  calls_without_cost: number;
}

const keyOf = (r: CallRecord, by: By): string =>
  by === 'day' ? r.time.slice(0, 10) : by === 'model' ? (r.model ?? '(none)') : r.command || '(none)';

function summarize(records: CallRecord[], by: By): UsageRow[] {
  const rows = new Map<string, UsageRow>();
  for (const r of records) {
    const key = keyOf(r, by);
    let row = rows.get(key);
    if (!row)
      rows.set(
        key,
        (row = {
          key,
          calls: 0,
          input_tokens: 0,
          output_tokens: 0,
          total_tokens: 0,
          cost_usd: 0,
          calls_without_cost: 0,
        }),
      );
    row.calls++;
    if (r.usage) {
      row.input_tokens += r.usage.input_tokens;
      row.output_tokens += r.usage.output_tokens;
      row.total_tokens += r.usage.total_tokens;
      if (r.cost_usd === undefined) row.calls_without_cost++;
    }
    row.cost_usd += r.cost_usd ?? 0;
  }
  return [...rows.values()].sort((a, b) =>
    by === 'day' ? a.key.localeCompare(b.key) : b.cost_usd - a.cost_usd || b.total_tokens - a.total_tokens,
  );
}

export default defineCommand({
  description:
    "Totals from the call log (docs/logs.md) over a period (default: 30 days). Costs are the API's own " +
    "figures or the catalogue's prices; calls whose cost is unknown are counted apart (NO COST). On a " +
    'terminal a table with a total; in a pipe TSV rows; --json one object per row and a last one with ' +
    '"total": true.',
  options: [
    { ...SINCE_FLAG, description: 'the period (default 30d; e.g. 24h, 7d)' },
    { flags: '--by <key>', description: `group by ${BY.join(', ')} (default day)`, parse: oneOf(BY) },
    MODEL_FILTER,
    COMMAND_FILTER,
  ],
  examples: [
    'svc usage',
    'svc usage --since 7d --by model',
    'svc usage --json | jq -s "map(select(.total))[0].cost_usd"',
  ],
  async run(ctx, _args, opts) {
    const by = opts.by ?? 'day';
    const records = readRecords(logDir(ctx.env), {
      since: sinceMs(ctx.now(), opts.since ?? 30 * 86400),
      model: opts.model,
      command: opts.command,
      texts: false,
    });
    const rows = summarize(records, by);
    const total = summarize(
      records.map((r) => ({ ...r, time: '', model: 'total', command: 'total' })),
      'model',
    )[0];
    if (ctx.out.json) {
      for (const r of rows) ctx.out.printJsonLine({ [by]: r.key, ...withoutKey(r) });
      ctx.out.printJsonLine({
        total: true,
        ...withoutKey(
          total ?? {
            key: '',
            calls: 0,
            input_tokens: 0,
            output_tokens: 0,
            total_tokens: 0,
            cost_usd: 0,
            calls_without_cost: 0,
          },
        ),
      });
      return 0;
    }
    const shown = ctx.out.stdoutIsTTY && total ? [...rows, { ...total, key: 'total' }] : rows;
    await ctx.out.table(
      shown,
      [
        { header: by.toUpperCase(), get: (r) => r.key, keep: true },
        { header: 'CALLS', get: (r) => r.calls, align: 'right' },
        { header: 'INPUT', get: (r) => r.input_tokens, align: 'right', optional: 3 },
        { header: 'OUTPUT', get: (r) => r.output_tokens, align: 'right', optional: 2 },
        { header: 'TOKENS', get: (r) => r.total_tokens, align: 'right' },
        { header: 'COST USD', get: (r) => r.cost_usd.toFixed(6), align: 'right' },
        { header: 'NO COST', get: (r) => r.calls_without_cost, align: 'right', optional: 1 },
      ],
      { emptyMessage: 'no calls logged in this period' },
    );
    return 0;
  },
});

function withoutKey(r: UsageRow): Omit<UsageRow, 'key'> {
  const { key: _key, ...rest } = r;
  return rest;
}
