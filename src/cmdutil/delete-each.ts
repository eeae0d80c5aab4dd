// `svc <resource> delete ID...`: confirm once for all (cmdutil/confirm), then delete every id given, one line per id;
// a failure on one does not stop the others, and the exit code is that of the first failure.
import { confirm } from './confirm.js';
import type { Context } from '../runtime/context.js';
import { describeError, exitCodeFor } from '../core/errors.js';
import type { HttpClient } from '../net/http.js';

export async function deleteEach(
  ctx: Context,
  what: { noun: string; yes?: boolean },
  ids: string[],
  remove: (http: HttpClient, id: string) => Promise<{ id?: string; deleted?: boolean }>,
): Promise<number> {
  await confirm(
    ctx,
    `Delete ${ids.length === 1 ? `${what.noun} ${ids[0]}` : `${ids.length} ${what.noun}s (${ids.join(', ')})`} ` +
      `permanently?`,
    { yes: what.yes },
  );
  const http = await ctx.http();
  let code = 0;
  for (const id of ids) {
    try {
      const r = await remove(http, id);
      if (ctx.out.json) ctx.out.printJsonLine(r);
      else ctx.out.line(`${r.id ?? id}\t${r.deleted ? 'deleted' : 'not deleted'}`);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      ctx.out.error(`${id}: ${describeError(err)}`);
      if (code === 0) code = exitCodeFor(err);
    }
  }
  return code;
}
