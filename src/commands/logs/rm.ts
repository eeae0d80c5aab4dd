import { defineCommand } from '../../cmdutil/command.js';
import { YES_OPTION, confirm } from '../../cmdutil/confirm.js';
import { logDir, removeDays, removeRecords } from '../../apilog/log.js';
import { duration, require } from '../../core/validate.js';
import { ExitCode } from '../../core/errors.js';

export default defineCommand({
  description:
    'Removes records for good. Ids: the line of each record is blanked in place (records other svc runs ' +
    'append meanwhile are kept). --older-than and --all delete whole day files (UTC days). Asks on a ' +
    'terminal; off a terminal pass --yes.',
  args: [{ name: 'id', description: 'call ids (svc logs)', variadic: true }],
  options: [
    { flags: '--all', description: 'delete the whole call log' },
    {
      flags: '--older-than <duration>',
      description: 'delete the days older than this (e.g. 30d)',
      parse: duration({ min: 86400, max: 3650 * 86400 }),
    },
    YES_OPTION,
  ],
  examples: ['svc logs rm 20261122-213614-k3x9q0ab', 'svc logs rm --older-than 30d --yes', 'svc logs rm --all --yes'],
  async run(ctx, [ids], opts) {
    const list = (ids as string[] | undefined) ?? [];
    const ways = [list.length > 0, !!opts.all, opts.olderThan !== undefined].filter(Boolean).length;
    require(ways === 1, 'ID', list.join(' ') || '(none)', 'call ids, --all or --older-than (one of them)');
    const dir = logDir(ctx.env);
    if (opts.all || opts.olderThan !== undefined) {
      const before =
        opts.olderThan === undefined
          ? undefined
          : new Date(ctx.now() - opts.olderThan * 1000).toISOString().slice(0, 10);
      await confirm(
        ctx,
        before ? `Delete the calls logged before ${before} permanently?` : 'Delete the whole call log permanently?',
        { yes: opts.yes },
      );
      const n = removeDays(dir, before);
      if (ctx.out.json) ctx.out.printJson({ deleted_days: n });
      else ctx.out.info(`${n} day file${n === 1 ? '' : 's'} deleted`);
      return 0;
    }
    await confirm(
      ctx,
      `Delete ${list.length === 1 ? `logged call ${list[0]}` : `${list.length} logged calls`} permanently?`,
      { yes: opts.yes },
    );
    const n = removeRecords(dir, new Set(list));
    if (ctx.out.json) ctx.out.printJson({ deleted: n });
    else ctx.out.info(`${n} call${n === 1 ? '' : 's'} deleted`);
    if (n < list.length) {
      ctx.out.error(`${list.length - n} of the ids were not in the log`);
      return ExitCode.notFound;
    }
    return 0;
  },
});
