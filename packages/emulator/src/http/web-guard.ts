// What keeps a web page the user visits from driving the emulator (issue 26, item 6). A page may send "simple"
// cross-site requests (GET, HEAD, or a POST of text/plain, a form or multipart) without asking first, and by DNS
// rebinding may make its own host name point at 127.0.0.1 and read the replies. So:
// - `Host` must be a name the server listens under: an IP literal (a rebinding attack needs a DNS name), localhost
//   (and *.localhost, which resolves to loopback) and the name given with --host. Checked on the admin API and on
//   every call of the API that changes state. On every interface (--host 0.0.0.0 or ::) any name is taken (a
//   container's service name, say): there the admin API needs the admin token anyway.
// - the admin API `/_emulator/*` refuses a cross-origin `Origin` and wants a JSON body on POST (a page cannot send
//   `application/json` cross-site without a preflight, which the emulator never grants).
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

export interface Refusal {
  status: number;
  message: string;
}

/** The names (without port) a request may give in `Host` to a server listening on `listenHost`; '*' for any. */
export function allowedHostNames(listenHost: string): Set<string> {
  const h = listenHost.toLowerCase();
  if (h === '0.0.0.0' || h === '::') return new Set(['*']);
  return new Set(isIP(h) ? ['localhost'] : ['localhost', h]);
}

/** The host name of a `Host` header value (brackets of an IPv6 literal and the port removed), lower case. */
function hostOf(value: string): string {
  const v = value.trim().toLowerCase();
  if (v.startsWith('[')) return v.slice(1, v.indexOf(']') < 0 ? undefined : v.indexOf(']'));
  const colon = v.lastIndexOf(':');
  return colon < 0 ? v : v.slice(0, colon);
}

function hostAllowed(value: string | undefined, allowed: Set<string>): boolean {
  if (value === undefined || value === '') return false;
  const name = hostOf(value).replace(/\.$/, '');
  return allowed.has('*') || isIP(name) !== 0 || allowed.has(name) || name.endsWith('.localhost');
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Why a request must be refused as possibly sent by a web page, or undefined when it may go on. */
export function webRefusal(
  req: IncomingMessage,
  method: string,
  isAdmin: boolean,
  allowed: Set<string>,
): Refusal | undefined {
  if (!isAdmin && !STATE_CHANGING.has(method)) return undefined;
  const host = req.headers.host;
  if (!hostAllowed(host, allowed))
    return {
      status: 403,
      message:
        `The Host ${JSON.stringify(host ?? '')} is not a name this emulator listens under (localhost, an IP ` +
        `address, or the --host name); refused so that a web page cannot reach it by DNS rebinding`,
    };
  if (!isAdmin) return undefined;
  const origin = req.headers.origin;
  if (origin !== undefined && !sameOrigin(origin, host!))
    return {
      status: 403,
      message: `The emulator admin API refuses cross-origin requests (Origin ${JSON.stringify(origin)})`,
    };
  if (method === 'POST' && !/^application\/([\w.+-]*\+)?json\s*(;|$)/i.test(String(req.headers['content-type'] ?? '')))
    return {
      status: 415,
      message: 'The emulator admin API takes POST requests with `Content-Type: application/json` only',
    };
  return undefined;
}

function sameOrigin(origin: string, host: string): boolean {
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' && u.host === new URL(`http://${host}`).host;
  } catch {
    return false;
  }
}
