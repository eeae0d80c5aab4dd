import { defineCommand } from '../../cmdutil/command.js';
import { integer, pattern, regex } from '../../core/validate.js';
import { EmulatorAdmin, type LoggedRequest } from '../../endpoints/emulator.js';

/** Wait `ms`, or less when `signal` aborts; the abort listener is removed either way (no listener per poll). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

const time = (ms: number) => new Date(ms).toISOString().slice(11, 23);

export default defineCommand({
  description:
    'One row per request the API part of the emulator received (admin calls are not logged): time, method, ' +
    'path, status, latency, body size and request id; a WebSocket session is a row of method WS with status 101 ' +
    "(or the refusal's) once it has ended (`svc emulator sessions` shows its events). Keys are redacted. " +
    '--json prints every field, one JSON object per line (with the query, headers and small JSON bodies). ' +
    '--follow keeps printing new requests ' +
    'until Ctrl-C, like tail -f. The emulator keeps the newest 10,000 requests.',
  options: [
    { flags: '-f, --follow', description: 'keep printing new requests as they arrive' },
    { flags: '--path <regex>', description: 'only paths matching (e.g. ^/v1/chat)', parse: regex() },
    {
      flags: '--status <code>',
      description: 'only this status (429) or class (4xx)',
      parse: pattern(/^[1-5](\d\d|xx)$/, 'a status like 429 or a class like 4xx'),
    },
    {
      flags: '--interval <ms>',
      description: 'with --follow: how often to ask for new requests',
      default: 250,
      parse: integer({ min: 10, max: 60_000 }),
    },
  ],
  examples: [
    'svc emulator requests',
    'svc emulator requests --status 4xx --json',
    'svc emulator requests --follow --path ^/v1/chat',
  ],
  async run(ctx, _args, opts) {
    const admin = new EmulatorAdmin(
      await ctx.http({ requireKey: false }),
      ctx.env.SVC_EMULATOR_ADMIN_TOKEN,
      ctx.signal,
    );
    const query = { path: opts.path, status: opts.status };
    const print = async (rows: LoggedRequest[], header: boolean) => {
      if (ctx.out.json) {
        for (const r of rows) ctx.out.printJsonLine(r);
        return;
      }
      if (!ctx.out.stdoutIsTTY || !header) {
        // a pipe (or follow after the first page): one tab-separated line per request
        for (const r of rows)
          ctx.out.line(
            [time(r.time), r.method, r.path, r.status ?? '-', r.duration_ms ?? '-', r.bytes ?? 0, r.id].join('\t'),
          );
        return;
      }
      await ctx.out.table(
        rows,
        [
          { header: 'TIME', get: (r) => time(r.time) },
          { header: 'METHOD', get: (r) => r.method },
          { header: 'PATH', get: (r) => r.path },
          { header: 'STATUS', get: (r) => r.status ?? '-', align: 'right' },
          { header: 'MS', get: (r) => r.duration_ms ?? '-', align: 'right' },
          { header: 'BYTES', get: (r) => r.bytes ?? 0, align: 'right' },
          { header: 'REQUEST ID', get: (r) => r.id, keep: true },
        ],
        { emptyMessage: opts.follow ? undefined : 'no requests logged' },
      );
    };
    // a request still being answered has no status yet: it is printed once it is finished
    const finished = (rows: LoggedRequest[]) => {
      const i = rows.findIndex((r) => r.status === undefined);
      return i === -1 ? rows : rows.slice(0, i);
    };
    // with --follow, what is logged before the first page marks where following starts: a request that arrives
    // later has a higher seq
    const logged = opts.follow ? await admin.requests({}) : [];
    const first = await admin.requests(query);
    const rows = opts.follow ? finished(first) : first;
    await print(rows, true);
    if (!opts.follow) return 0;
    // from the first request still being answered (printed once finished), else after all logged so far
    const pending = first.find((r) => r.status === undefined);
    let after = pending ? pending.seq - 1 : Math.max(0, ...rows.map((r) => r.seq), ...logged.map((r) => r.seq));
    for (;;) {
      await pause(opts.interval, ctx.signal);
      if (ctx.signal.aborted) return 130;
      const fresh = finished(await admin.requests({ ...query, after }));
      if (fresh.length) {
        await print(fresh, false);
        after = fresh[fresh.length - 1]!.seq;
      }
    }
  },
});
