// The checks of `svc doctor`, each one line: ok, warn or fail, what was found, and the fix. Nothing here prints
// the API key or a proxy's password: details go through redactCredentials, and the key is only ever named by its
// source.
import { lookup } from 'node:dns/promises';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { IN_EXECUTABLE } from 'svc-formats/assets';
import type { AudioBackend } from '../../audio/backend.js';
import { describeError } from '../../core/errors.js';
import { redactCredentials, type HttpClient, type NetworkInputs } from '../../net/http.js';
import type { ResolvedConfig } from '../../runtime/config.js';

export type Status = 'ok' | 'warn' | 'fail';
export interface Check {
  name: string;
  status: Status;
  detail: string;
  fix?: string;
}

export const check = (name: string, status: Status, detail: string, fix?: string): Check => ({
  name,
  status,
  detail: redactCredentials(detail),
  ...(fix ? { fix: redactCredentials(fix) } : {}),
});

const KEY_SOURCES: Record<string, string> = {
  env: 'SVC_API_KEY',
  profile: 'the profile (svc auth login)',
  command: 'api_key_cmd',
  emulator: 'the emulator',
};

export function configCheck(cfg: ResolvedConfig): Check {
  return check('config', 'ok', `folder ${cfg.dir}, profile ${cfg.profile}`);
}

export function keyCheck(cfg: ResolvedConfig, emulator: boolean): Check {
  const source = emulator ? 'emulator' : cfg.apiKeySource;
  if (!source)
    return check('key', 'fail', 'no API key', 'run `svc auth login`, or set SVC_API_KEY (or use --emulator)');
  return check('key', 'ok', `from ${KEY_SOURCES[source]}`);
}

/** The proxy for the base URL and whether it answers CONNECT; the proxy found (undefined for none). */
export async function proxyCheck(url: URL, net: NetworkInputs): Promise<{ check: Check; proxy?: string }> {
  const network = await import('../../net/network.js');
  let proxy: string | undefined;
  try {
    proxy = network.proxyFor(url, net);
  } catch (err) {
    return { check: check('proxy', 'fail', describeError(err), 'fix --proxy, the proxy key or HTTPS_PROXY') };
  }
  if (!proxy) return { check: check('proxy', 'ok', `none for ${url.host}${net.proxy === '' ? ' (turned off)' : ''}`) };
  // plain http:// goes to an http proxy in absolute form (no CONNECT): the api row's request is the check
  if (url.protocol === 'http:' && proxy.startsWith('http:'))
    return {
      check: check(
        'proxy',
        'ok',
        `${network.proxyName(proxy)} forwards http:// requests to ${url.host} (not tunnelled)`,
      ),
      proxy,
    };
  const tls = await import('../../net/tls-errors.js');
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  try {
    const socket = await tls.tunnel(proxy, `${url.hostname}:${port}`);
    socket.destroy();
    return { check: check('proxy', 'ok', `${network.proxyName(proxy)} answers CONNECT to ${url.host}`), proxy };
  } catch (err) {
    const status = (err as { statusCode?: number }).statusCode;
    const said =
      tls.describeProxyError(status ? { message: `Proxy response (${status})` } : err, proxy) ?? describeError(err);
    return { check: check('proxy', 'fail', said, 'check --proxy, the proxy key or HTTPS_PROXY/NO_PROXY'), proxy };
  }
}

/** DNS of the base URL's host (the proxy's job when one applies). */
export async function dnsCheck(url: URL, proxy: string | undefined): Promise<Check> {
  if (proxy) return check('dns', 'ok', `${url.hostname} is resolved by the proxy`);
  try {
    const { address } = await lookup(url.hostname.replace(/^\[|\]$/g, ''));
    return check('dns', 'ok', `${url.hostname} → ${address}`);
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    return check('dns', 'fail', `cannot resolve ${url.hostname} (${code})`, 'check the base URL and the network');
  }
}

/** The TLS chain: a verified handshake with svc's trust settings, naming the issuer; fails as a request would. */
export async function tlsCheck(url: URL, net: NetworkInputs, proxy: string | undefined): Promise<Check> {
  if (url.protocol !== 'https:') return check('tls', 'ok', `plain http to ${url.host} (no TLS)`);
  const network = await import('../../net/network.js');
  const errors = await import('../../net/tls-errors.js');
  const { isTlsTrustError } = await import('../../net/http.js');
  let settings: import('../../net/network.js').TlsSettings;
  try {
    settings = network.tlsSettings(net);
  } catch (err) {
    return check('tls', 'fail', describeError(err), 'fix SVC_CA_CERT / ca_cert or the client certificate settings');
  }
  try {
    const cert = await verifiedPeer(url, settings, proxy);
    const issuer = cert.issuer as unknown as Record<string, string> | undefined;
    const days = Math.floor((Date.parse(cert.valid_to) - Date.now()) / 86_400_000);
    const name = issuer?.CN ?? issuer?.O ?? 'an unnamed issuer';
    return check('tls', days < 14 ? 'warn' : 'ok', `certificate issued by ${name}, valid ${days} more days`);
  } catch (err) {
    if (!isTlsTrustError(err)) return check('tls', 'fail', `handshake with ${url.host} failed: ${describeError(err)}`);
    const said = await errors.describeTlsError(err, url, { proxy, tls: settings, network });
    const [what, fix] = said.split(/(?<=\)\.) /);
    return check('tls', 'fail', what ?? said, fix);
  }
}

async function verifiedPeer(url: URL, settings: import('../../net/network.js').TlsSettings, proxy?: string) {
  const { connect } = await import('node:tls');
  const port = Number(url.port) || 443;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const { tunnel } = await import('../../net/tls-errors.js');
  const socket = proxy ? await tunnel(proxy, `${url.hostname}:${port}`) : undefined;
  return new Promise<ReturnType<TLSSocket['getPeerCertificate']>>((resolve, reject) => {
    const s = connect({ host, port, socket, servername: /^[\d.]+$|:/.test(host) ? undefined : host, ...settings });
    s.setTimeout(10_000, () => s.destroy(new Error('timed out')));
    s.once('secureConnect', () => {
      const c = s.getPeerCertificate();
      s.destroy();
      resolve(c);
    });
    s.once('error', reject);
  });
}

/** The key against /v1/api-key, and the clock against the Date of whatever the server answered (a 401 has one). */
export async function apiChecks(http: HttpClient | undefined): Promise<Check[]> {
  if (!http) return [check('api', 'fail', 'no request could be made (see above)')];
  let res: Awaited<ReturnType<HttpClient['request']>>;
  try {
    res = await http.request({ method: 'GET', path: '/v1/api-key', maxRetries: 0, okStatuses: [400, 401, 403] });
  } catch (err) {
    return [
      check('api', 'fail', describeError(err), 'check the base URL, the network and the proxy'),
      check('clock', 'warn', 'not checked: the server did not answer'),
    ];
  }
  const info = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  return [keyRow(res.status, info, !!http.opts.apiKey), clockCheck(String(res.headers.date ?? ''))];
}

function keyRow(status: number, info: Record<string, unknown>, hasKey: boolean): Check {
  if (!hasKey) return check('api', 'warn', 'the key is not checked: no API key (see the key row)');
  // an unknown key is a 400 (invalid-argument), a missing or malformed one 401, a key without rights 403
  if (status === 400 || status === 401 || status === 403) {
    const said = typeof info.error === 'string' ? `: ${info.error.slice(0, 200)}` : '';
    return check(
      'api',
      'fail',
      `the key is refused (HTTP ${status}${said})`,
      'run `svc auth login`, or fix SVC_API_KEY',
    );
  }
  const flags = ['api_key_blocked', 'api_key_disabled', 'team_blocked'].filter((f) => info[f] === true);
  return flags.length
    ? check('api', 'fail', `the key is ${flags.join(', ').replace(/_/g, ' ')}`, 'ask the team admin, or log in again')
    : check('api', 'ok', `the key works (${String(info.api_key_id ?? 'its id not given')})`);
}

function clockCheck(dateHeader: string): Check {
  const date = Date.parse(dateHeader);
  if (Number.isNaN(date)) return check('clock', 'warn', 'the server sent no Date header');
  const skew = Math.round((Date.now() - date) / 1000);
  return Math.abs(skew) > 60
    ? check('clock', 'warn', `${skew} s off the server's clock`, 'set the clock (NTP)')
    : check('clock', 'ok', `within ${Math.max(1, Math.abs(skew))} s of the server's clock`);
}

export async function audioChecks(env: NodeJS.ProcessEnv): Promise<Check[]> {
  const { onPath } = await import('../../audio/devices.js');
  const { audioBackend } = await import('../../audio/backend.js');
  // the program this platform's backend records with (arecord on Linux, sox on macOS and Windows)
  const backend = audioBackend();
  const out = [
    onPath(backend.captureTool, env)
      ? check('audio capture', 'ok', `${backend.captureTool} found (${backend.describe})`)
      : check('audio capture', 'warn', `${backend.captureTool} is not on PATH`, `${backend.install} (live audio)`),
  ];
  for (const tool of ['ffmpeg', 'ffprobe'])
    out.push(
      onPath(tool, env)
        ? check(tool, 'ok', 'found on PATH')
        : check(tool, 'warn', 'not on PATH', `install ffmpeg (${tool} reads and checks media files)`),
    );
  out.push(
    IN_EXECUTABLE ? playerCheck(backend, onPath(backend.player(undefined, PCM).command, env)) : speakerCheck(backend),
  );
  return out;
}

const PCM = { sampleRate: 24000, channels: 1 };

/** The single executable cannot load the native `speaker` module: it plays through the platform's player. */
function playerCheck(backend: AudioBackend, found: boolean): Check {
  const player = backend.player(undefined, PCM).command;
  const about = `this single executable plays through ${player} (the speaker module is for npm installs)`;
  if (found) return check('playback', 'ok', about);
  const install = backend.platform === 'linux' ? 'apt-get install alsa-utils' : backend.install;
  return check(
    'playback',
    'warn',
    `${about}: ${player} is not on PATH`,
    `${install}; until then play to a file with -o`,
  );
}

/** The optional `speaker` module (it plays audio): npm builds it at install, and leaves it out when that fails. */
function speakerCheck(backend: { platform: string; install: string }): Check {
  let main: string;
  try {
    main = createRequire(import.meta.url).resolve('speaker');
  } catch {
    main = '';
  }
  // looked at, not loaded: its native part opens the sound system
  const built = main !== '' && existsSync(join(dirname(main), 'build', 'Release', 'binding.node'));
  if (built) return check('speaker', 'ok', 'the speaker module is installed');
  const install =
    backend.platform === 'linux'
      ? `${backend.install} (its native part is built with ALSA's headers)`
      : "npm rebuild speaker in svc's folder";
  return check(
    'speaker',
    'warn',
    main
      ? 'the optional speaker module was installed without its native part'
      : 'the optional speaker module is missing',
    `${install}; until then play to a file with -o`,
  );
}

export function completionCheck(env: NodeJS.ProcessEnv): Check {
  const home = env.HOME ?? homedir();
  const data = env.XDG_DATA_HOME || join(home, '.local', 'share');
  const config = env.XDG_CONFIG_HOME || join(home, '.config');
  const places = [
    join(data, 'bash-completion', 'completions', 'svc'),
    '/usr/share/bash-completion/completions/svc',
    '/etc/bash_completion.d/svc',
    join(config, 'fish', 'completions', 'svc.fish'),
    join(home, '.zfunc', '_svc'),
    '/usr/local/share/zsh/site-functions/_svc',
  ];
  const found = places.find((p) => existsSync(p));
  return found
    ? check('completion', 'ok', `installed (${found})`)
    : check(
        'completion',
        'warn',
        'no shell completion installed',
        `svc completion bash > ${join(data, 'bash-completion', 'completions', 'svc')} (or zsh, fish)`,
      );
}
