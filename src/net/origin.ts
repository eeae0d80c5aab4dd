// Where a request may go, checked at the two chokepoints (net/http for every request, net/ws for every socket) before
// anything connects (issue 25): the API key goes only to the base URL's origin — scheme, host and port, gh's rule —
// and a request for another origin is refused unless it asked to go without the key; plain http:// (ws://) goes only
// to a loopback host unless SVC_ALLOW_INSECURE_HTTP=1, for every URL svc connects to, not only the base URL.
import { PreconditionError, UsageError } from '../core/errors.js';

/**
 * The environment variable that allows plain http:// to a host that is not loopback (the key then travels in clear).
 */
export const INSECURE_HTTP_ENV = 'SVC_ALLOW_INSECURE_HTTP';

/** A loopback host: localhost, *.localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    /^127(\.\d{1,3}){3}$/.test(h) ||
    h === '::1' ||
    h === '0:0:0:0:0:0:0:1'
  );
}

/** scheme://host:port with ws(s) counted as http(s): a socket on the API's host is on the API's origin. */
function originOf(url: URL): string {
  const scheme = url.protocol === 'wss:' ? 'https:' : url.protocol === 'ws:' ? 'http:' : url.protocol;
  const port = url.port || (scheme === 'https:' ? '443' : scheme === 'http:' ? '80' : '');
  return `${scheme}//${url.hostname.toLowerCase()}:${port}`;
}

/** Plain http:// or ws:// to a host that is not loopback, without SVC_ALLOW_INSECURE_HTTP: refused everywhere. */
export function plainHttpRefused(url: URL, allowInsecureHttp: boolean): boolean {
  const plain = url.protocol === 'http:' || url.protocol === 'ws:';
  return plain && !allowInsecureHttp && !isLoopbackHost(url.hostname);
}

export interface DestinationRule {
  /** the base URL: the one origin the key goes to */
  baseUrl: string;
  /** whether this request would carry the API key (Authorization header, or a socket's auth) */
  withKey: boolean;
  /** SVC_ALLOW_INSECURE_HTTP=1 */
  allowInsecureHttp: boolean;
  /**
   * whether this run has already sent something: the refusal is then exit 1 (a URL the server gave, after a paid
   * request), not the "nothing was sent" exit 2
   */
  sentBefore?: boolean;
}

/** Refuse `url` (exit 2, or 1 when something was sent before) when the rule does not allow it; before connecting. */
export function checkDestination(url: string, rule: DestinationRule): void {
  const target = new URL(url);
  const refuse = (why: string): never => {
    throw rule.sentBefore ? new PreconditionError(why) : new UsageError(why);
  };
  if (rule.withKey) {
    const base = new URL(rule.baseUrl);
    if (originOf(target) !== originOf(base)) {
      refuse(
        `${target.origin} is not the API's origin (${base.origin}, the base URL's scheme, host and port): svc ` +
          'sends the API key only there; for a request to another host without the key, say so (svc api --no-auth)',
      );
    }
  }
  if (plainHttpRefused(target, rule.allowInsecureHttp)) {
    refuse(
      `${target.protocol}// to ${target.host} is refused: ${rule.withKey ? 'the API key and ' : ''}the exchange ` +
        `would cross the network in clear; use https://, a loopback address, or set ${INSECURE_HTTP_ENV}=1 to ` +
        'allow it',
    );
  }
}
