// The http(s) URLs of -a and -f: fetched without the key, at most `fetch.max_bytes` (default 10 MiB) read, so that a
// page of any size (or one that never ends) costs at most that much memory and is never sent on to the API: a
// Content-Length over the cap stops it before the body, the bytes counted stop it at the cap otherwise.
import { UsageError } from '../core/errors.js';
import { integer } from '../core/validate.js';
import type { Context } from '../runtime/context.js';

export const FETCH_MAX_BYTES_KEY = 'fetch.max_bytes';
export const DEFAULT_FETCH_MAX_BYTES = 10 * 1024 * 1024;
/** the highest cap the key takes: 1 GiB */
export const FETCH_MAX_BYTES_LIMIT = 1024 * 1024 * 1024;

export const parseFetchMaxBytes = integer({ min: 1, max: FETCH_MAX_BYTES_LIMIT });

/** The cap that applies: the profile's fetch.max_bytes (checked like `config set` checks it), else the default. */
export function fetchMaxBytes(ctx: Context): number {
  const cfg = ctx.config();
  const set = cfg.profileData[FETCH_MAX_BYTES_KEY];
  if (set === undefined || set === '') return DEFAULT_FETCH_MAX_BYTES;
  return parseFetchMaxBytes(String(set), `${FETCH_MAX_BYTES_KEY} (profile ${cfg.profile})`, undefined);
}

const mib = (n: number) => (n >= 1024 * 1024 ? `${+(n / 1024 / 1024).toFixed(1)} MiB` : `${n} bytes`);

/** The body of `url` (`flag`: -a or -f, for the message), refused (exit 2) once it is over the cap. */
export async function fetchUrl(ctx: Context, url: string, flag: string): Promise<Buffer> {
  const max = fetchMaxBytes(ctx);
  const tooLarge = (what: string) =>
    new UsageError(
      `${flag} ${url}: ${what}, over the ${mib(max)} svc fetches (nothing was sent to the API); raise it with ` +
        `\`svc config set ${FETCH_MAX_BYTES_KEY} BYTES\` (up to ${mib(FETCH_MAX_BYTES_LIMIT)}), or save the page ` +
        'and attach the part you need',
    );
  const http = await ctx.http({ requireKey: false });
  const res = await http.request({ method: 'GET', path: url, auth: false, signal: ctx.signal });
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    res.body.destroy();
    throw tooLarge(`the server says ${mib(declared)}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // leaving the loop by the throw destroys the body: the rest is never read
  for await (const c of res.body) {
    size += (c as Uint8Array).length;
    if (size > max) throw tooLarge('it is larger');
    chunks.push(Buffer.from(c as Uint8Array));
  }
  return Buffer.concat(chunks, size);
}
