// Where a connection goes through and whom it trusts: the proxy for a URL (--proxy, the `proxy` key, then the
// environment's variables with curl's NO_PROXY rules), the trusted roots (SSL_CERT_FILE, SSL_CERT_DIR,
// NODE_EXTRA_CA_CERTS, SVC_CA_CERT / `ca_cert`) and the client certificate. Decided here once for HTTP (net/http)
// and WebSocket (net/ws) alike, never per command; loaded only when one of these settings is there
// (networkConfigured in net/http), so a run without any pays nothing.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { readEnv } from '../core/environment.js';
import { redactCredentials, type NetworkInputs } from './http.js';

/** The proxy a connection to `url` goes through, or undefined for a direct connection. */
export function proxyFor(url: URL, net: NetworkInputs): string | undefined {
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = Number(url.port) || (secure ? 443 : 80);
  if (net.proxy !== undefined) {
    // an explicit proxy (--proxy, the `proxy` key) is for every host NO_PROXY does not name, loopback included
    if (net.proxy === '') return undefined;
    return noProxyMatches(host, port, noProxyList(net.env)) ? undefined : checkedProxy(net.proxy, '--proxy');
  }
  const env = net.env;
  const [name, value] = secure
    ? firstSet(env, ['https_proxy', 'HTTPS_PROXY'])
    : firstSet(env, ['http_proxy', 'HTTP_PROXY']);
  if (!value) return undefined;
  // a proxy of the environment never carries loopback traffic (a local emulator, a test server)
  if (host === 'localhost' || host.endsWith('.localhost') || inRange(host, '127.0.0.0/8') || inRange(host, '::1/128'))
    return undefined;
  return noProxyMatches(host, port, noProxyList(env)) ? undefined : checkedProxy(value, name);
}

function firstSet(env: NodeJS.ProcessEnv, names: readonly ProxyVar[]): [string, string | undefined] {
  for (const n of names) {
    const v = readEnv(env, n);
    if (v) return [n, v];
  }
  return [names[0]!, undefined];
}

type ProxyVar = 'https_proxy' | 'HTTPS_PROXY' | 'http_proxy' | 'HTTP_PROXY';

function noProxyList(env: NodeJS.ProcessEnv): string {
  return readEnv(env, 'no_proxy') || readEnv(env, 'NO_PROXY') || '';
}

/** A proxy URL as given (scheme optional, http:// assumed as curl does); a bad one is a usage error naming it. */
function checkedProxy(value: string, source: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw new UsageError(
      `${source}: ${JSON.stringify(redactCredentials(value))} is not a proxy URL (http://host:port)`,
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new UsageError(`${source}: only http:// and https:// proxies are supported, not ${u.protocol}//`);
  return withScheme;
}

/**
 * curl's NO_PROXY rules: entries separated by commas or spaces; `*` alone matches every host; a host name
 * matches itself and its subdomains (a leading dot is ignored); an entry with `:port` matches that port only;
 * IP literals match exactly, and an address/bits entry matches the addresses in that range.
 */
export function noProxyMatches(host: string, port: number, list: string): boolean {
  const h = host
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  for (const raw of list.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    let entryPort: number | undefined;
    const m = /^(\[[^\]]+\]|[^:]+|[0-9a-f:]+::?[0-9a-f:]*):(\d+)$/.exec(entry);
    if (m && isIP(entry) === 0) {
      entry = m[1]!;
      entryPort = Number(m[2]);
    }
    if (entryPort !== undefined && entryPort !== port) continue;
    entry = entry.replace(/^\[|\]$/g, '');
    if (entry.includes('/') && isIP(h)) {
      if (inRange(h, entry)) return true;
      continue;
    }
    entry = entry.replace(/^\*?\./, '').replace(/\.$/, '');
    if (isIP(entry) || isIP(h)) {
      if (entry === h) return true;
      continue;
    }
    if (h === entry || h.endsWith(`.${entry}`)) return true;
  }
  return false;
}

function inRange(address: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const family = isIP(base ?? '');
  if (!family || isIP(address) !== family) return false;
  const list = new BlockList();
  try {
    list.addSubnet(base!, Number(bits), family === 4 ? 'ipv4' : 'ipv6');
  } catch {
    return false;
  }
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The proxy as named in messages: its host and port, never its credentials. */
export function proxyName(proxy: string): string {
  try {
    const u = new URL(proxy);
    return `${u.protocol}//${u.host}`;
  } catch {
    return redactCredentials(proxy);
  }
}

export interface TlsSettings {
  /** the trusted roots, when they differ from Node's own */
  ca?: string[];
  cert?: string;
  key?: string;
  /**
   * The three above made once into OpenSSL's form: tls.connect takes it over `ca`, `cert` and `key`, which it would
   * otherwise parse again for every connection (Node's ~140 roots and the CA: ~5 ms of CPU each).
   */
  secureContext?: import('node:tls').SecureContext;
}

/** The trust and client certificate settings, read once; `warn` hears of a key file others can read. */
export function tlsSettings(net: NetworkInputs, warn?: (note: string) => void): TlsSettings {
  const out: TlsSettings = {};
  const ca = trustedRoots(net);
  if (ca) out.ca = ca;
  if (net.clientCert || net.clientKey) {
    if (!net.clientCert || !net.clientKey)
      throw new UsageError(
        'a client certificate needs both client_cert and client_key (SVC_CLIENT_CERT and SVC_CLIENT_KEY)',
      );
    out.cert = readPem(net.clientCert, 'the client certificate (SVC_CLIENT_CERT / client_cert)');
    out.key = readPem(net.clientKey, 'the client key (SVC_CLIENT_KEY / client_key)');
    const mode = statSync(net.clientKey).mode;
    if (process.platform !== 'win32' && mode & 0o044)
      warn?.(
        `the client key ${net.clientKey} can be read by other users (mode ` +
          `${(mode & 0o777).toString(8)}): chmod 600 ${net.clientKey}`,
      );
  }
  if (out.ca || out.cert) out.secureContext = secureContextOf(out);
  return out;
}

let lastContext: { pems: string; context: import('node:tls').SecureContext } | undefined;

/** The settings as one SecureContext; the last one made is kept for the same certificates (one per run). */
function secureContextOf(settings: TlsSettings): import('node:tls').SecureContext {
  const pems = JSON.stringify([settings.ca, settings.cert, settings.key]);
  if (lastContext?.pems !== pems)
    lastContext = { pems, context: process.getBuiltinModule('node:tls').createSecureContext({ ...settings }) };
  return lastContext.context;
}

/** undefined when Node's own roots (with NODE_EXTRA_CA_CERTS, which Node reads itself) are the whole story. */
function trustedRoots(net: NetworkInputs): string[] | undefined {
  const file = readEnv(net.env, 'SSL_CERT_FILE');
  const dir = readEnv(net.env, 'SSL_CERT_DIR');
  if (!file && !dir && !net.caCert) return undefined;
  const roots: string[] = [];
  if (file) roots.push(readPem(file, 'SSL_CERT_FILE'));
  else {
    roots.push(...nodeRoots());
    // a `ca` list replaces Node's store, NODE_EXTRA_CA_CERTS included: kept by adding it again
    const extra = readEnv(net.env, 'NODE_EXTRA_CA_CERTS');
    if (extra) roots.push(readPem(extra, 'NODE_EXTRA_CA_CERTS'));
  }
  if (dir) for (const d of dir.split(process.platform === 'win32' ? ';' : ':')) if (d) roots.push(...pemsIn(d));
  if (net.caCert) roots.push(readPem(net.caCert, 'SVC_CA_CERT / ca_cert'));
  return roots;
}

function nodeRoots(): string[] {
  // (node:tls only here: an http:// origin through a proxy needs no certificates)
  return [...process.getBuiltinModule('node:tls').rootCertificates];
}

function pemsIn(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    throw new UsageError(`SSL_CERT_DIR: cannot read ${dir}: ${(err as Error).message}`);
  }
  const pems: string[] = [];
  for (const n of names.sort()) {
    try {
      const text = readFileSync(join(dir, n), 'utf8');
      if (text.includes('-----BEGIN CERTIFICATE-----')) pems.push(text);
    } catch {
      // not a file (a folder, a broken link): OpenSSL skips it too
    }
  }
  return pems;
}

function readPem(path: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(
      `${what}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  if (!text.includes('-----BEGIN ')) throw new UsageError(`${what}: ${path} is not a PEM file`);
  return text;
}
