// `svc <resource> delete ID...`: delete every id given, one line per id; a failure on one does not stop the
// others, and the exit code is that of the first failure.
import type { Context } from './context.js';
import { describeError, exitCodeFor } from './errors.js';
import type { HttpClient } from './http.js';

export async function deleteEach(ctx: Context, ids: string[], remove: (http: HttpClient, id: string) => Promise<{ id?: string; deleted?: boolean }>): Promise<number> {
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
