// Failures of the network settings in words: a certificate the client does not trust (with its issuer, read by a
// second handshake that does not verify, and what to set), and a proxy that is dead or refuses. Loaded on failure.
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { proxyRefusalStatus, tlsCode } from './http.js';
import type { TlsSettings } from './network.js';

const REASONS: Record<string, string> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its issuer is not a trusted certificate authority',
  UNABLE_TO_GET_ISSUER_CERT: 'its issuer is not a trusted certificate authority',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its issuer is not a trusted certificate authority',
  SELF_SIGNED_CERT_IN_CHAIN: 'its chain ends in a self-signed certificate that is not trusted',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed',
  CERT_HAS_EXPIRED: 'it has expired',
  CERT_NOT_YET_VALID: 'it is not valid yet (is the clock right?)',
  CERT_UNTRUSTED: 'it is not trusted',
  CERT_REVOKED: 'it was revoked',
  ERR_TLS_CERT_ALTNAME_INVALID: 'it does not name this host',
};

/** e.g. "cannot trust the certificate of api.example.com:443 (its issuer …): issued by …; fix". */
export async function describeTlsError(
  err: unknown,
  url: URL,
  ctx: { proxy?: string; tls?: TlsSettings; network: typeof import('./network.js') },
): Promise<string> {
  const code = tlsCode(err) ?? '';
  const host = url.host;
  const issuer = await peerIssuer(url, ctx.proxy, ctx.tls).catch(() => undefined);
  const via = ctx.proxy ? ` through the proxy ${ctx.network.proxyName(ctx.proxy)}` : '';
  const fix =
    code === 'ERR_TLS_CERT_ALTNAME_INVALID'
      ? 'check the base URL (--base-url, SVC_BASE_URL) names the host the certificate is for'
      : code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID'
        ? "check the machine's clock, or ask the server's owner to renew the certificate"
        : 'a proxy or firewall may be inspecting TLS: point SVC_CA_CERT (or `svc config set ca_cert FILE`) at ' +
          'its CA certificate (PEM)';
  return (
    `TLS: cannot trust the certificate of ${host}${via}: ${REASONS[code] ?? code} (${code}); ` +
    `issued by ${issuer ?? 'an unknown issuer'}. ${fix}`
  );
}

function nameOf(subject: Record<string, string | string[]> | undefined): string | undefined {
  if (!subject) return undefined;
  const pick = (k: string) => (Array.isArray(subject[k]) ? subject[k][0] : subject[k]) as string | undefined;
  const cn = pick('CN');
  const o = pick('O');
  return cn && o && cn !== o ? `${cn} (${o})` : (cn ?? o);
}

/** The issuer of the certificate `url`'s server presents, read without verifying it (a second handshake). */
export async function peerIssuer(url: URL, proxy: string | undefined, tls: TlsSettings | undefined) {
  const cert = await peerCertificate(url, proxy, tls);
  return nameOf(cert?.issuer as unknown as Record<string, string>);
}

/** The certificate the server presents (unverified), through the proxy when there is one. */
export async function peerCertificate(url: URL, proxy: string | undefined, tls: TlsSettings | undefined) {
  const { connect } = await import('node:tls');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port) || 443;
  const socket = proxy ? await tunnel(proxy, `${url.hostname}:${port}`) : undefined;
  return new Promise<ReturnType<TLSSocket['getPeerCertificate']> | undefined>((resolve, reject) => {
    const s = connect({
      host,
      port,
      socket,
      servername: /^[\d.]+$|:/.test(host) ? undefined : host,
      rejectUnauthorized: false,
      cert: tls?.cert,
      key: tls?.key,
      timeout: 5000,
    });
    s.once('secureConnect', () => {
      const c = s.getPeerCertificate();
      s.destroy();
      resolve(c && Object.keys(c).length ? c : undefined);
    });
    s.once('error', reject);
    s.once('timeout', () => {
      s.destroy();
      resolve(undefined);
    });
  });
}

/** A CONNECT tunnel through the proxy (undici's client does it), for a handshake of our own. */
export async function tunnel(proxy: string, target: string): Promise<Socket> {
  const { Client } = await import('undici');
  const u = new URL(proxy);
  const headers: Record<string, string> = {};
  if (u.username)
    headers['proxy-authorization'] =
      `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
  const client = new Client(u.origin, { connect: { timeout: 5000 } });
  const { socket, statusCode } = await client.connect({ path: target, headers });
  if (statusCode !== 200) {
    socket.destroy();
    throw Object.assign(new Error(`the proxy answered CONNECT with ${statusCode}`), { statusCode });
  }
  return socket as Socket;
}

/** A failure that was the proxy's (dead, refusing, asking for credentials), named as the proxy; else undefined. */
export function describeProxyError(err: unknown, proxy: string): string | undefined {
  const u = new URL(proxy);
  const name = `${u.protocol}//${u.host}`;
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code;
  const status = proxyRefusalStatus(err)?.toString();
  // (407 is the standard answer; tinyproxy and some others say 401)
  if (status === '407' || status === '401')
    return (
      `the proxy ${name} asks for credentials (HTTP ${status}): ` +
      `${u.username ? 'the user and password in the proxy URL were refused' : 'put them in the proxy URL'} ` +
      '(http://user:password@host:port)'
    );
  if (status) return `the proxy ${name} refused the connection (HTTP ${status} to CONNECT)`;
  switch (code) {
    case 'ECONNREFUSED':
      return `cannot connect to the proxy ${name}: connection refused (check --proxy, the proxy key or HTTPS_PROXY)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve the proxy ${name} (check --proxy, the proxy key or HTTPS_PROXY)`;
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return `cannot connect to the proxy ${name}: timed out`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return `the proxy ${name} closed the connection`;
    default:
      return undefined;
  }
}
