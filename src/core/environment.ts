// Every environment variable svc reads, in one list: `svc help environment` prints it and core reads variables
// through readEnv (a name missing here does not compile). test/core/environment.test.ts checks that every variable
// the source names is listed.

export interface EnvVar {
  name: string;
  description: string;
  group: 'api' | 'network' | 'files' | 'output' | 'emulator' | 'tools' | 'system';
}

export const ENVIRONMENT = [
  {
    name: 'SVC_API_KEY',
    group: 'api',
    description: 'the API key (before the stored one; never accepted as an argument)',
  },
  { name: 'SVC_BASE_URL', group: 'api', description: 'API base URL (default https://api.svc.ai; --base-url)' },
  { name: 'SVC_PROFILE', group: 'api', description: 'configuration profile (--profile)' },
  { name: 'SVC_MODEL', group: 'api', description: "default model, before the profile's (-m)" },
  {
    name: 'SVC_TIMEOUT',
    group: 'api',
    description:
      'seconds to wait for a reply and for each chunk of a stream (default 60); checked like --timeout (a ' +
      'bad value is exit 2)',
  },
  {
    name: 'SVC_MAX_RETRIES',
    group: 'api',
    description: 'retries on 429, and on 408/409/5xx for GET (default 2); checked like --max-retries',
  },
  {
    name: 'SVC_ALLOW_INSECURE_HTTP',
    group: 'api',
    description:
      '1: allow plain http:// (ws://) to a host that is not loopback — the base URL and any URL svc connects to ' +
      '(refused otherwise, exit 2: the key and the data would cross the network in clear)',
  },
  {
    name: 'SVC_MAX_UPLOAD_BYTES',
    group: 'api',
    description: "largest file `files upload` sends (default the API's 50 MiB; for servers with a raised limit)",
  },
  {
    name: 'SVC_MCP_TOKEN',
    group: 'api',
    description:
      'the bearer token `svc mcp serve --http` asks of its clients (default: a new one each start, printed on stderr)',
  },
  {
    name: 'SVC_WEBHOOK_SECRET',
    group: 'api',
    description: 'webhook signing secret for `svc calls listen` (or --secret-file; never an argument)',
  },
  {
    name: 'SVC_FORWARD_SECRET',
    group: 'api',
    description:
      'secret that signs the deliveries `svc calls listen --forward-to` relays (or --forward-secret-file; never an ' +
      'argument; default: the signing secret)',
  },
  {
    name: 'https_proxy',
    group: 'network',
    description: 'proxy for https:// and wss:// (before HTTPS_PROXY; --proxy and the `proxy` key go first)',
  },
  { name: 'HTTPS_PROXY', group: 'network', description: 'proxy for https:// and wss:// when https_proxy is not set' },
  { name: 'http_proxy', group: 'network', description: 'proxy for http:// and ws:// (before HTTP_PROXY)' },
  { name: 'HTTP_PROXY', group: 'network', description: 'proxy for http:// and ws:// when http_proxy is not set' },
  {
    name: 'no_proxy',
    group: 'network',
    description:
      "hosts reached without a proxy, curl's rules: host suffixes, `*`, :port, IP literals and CIDR (before NO_PROXY)",
  },
  { name: 'NO_PROXY', group: 'network', description: 'as no_proxy, when no_proxy is not set' },
  {
    name: 'SSL_CERT_FILE',
    group: 'network',
    description: 'a PEM bundle that replaces the default trusted roots (as curl and OpenSSL read it)',
  },
  {
    name: 'SSL_CERT_DIR',
    group: 'network',
    description: 'a folder of PEM certificates trusted besides the roots (as curl and OpenSSL read it)',
  },
  {
    name: 'NODE_EXTRA_CA_CERTS',
    group: 'network',
    description: "a PEM bundle trusted besides the default roots (Node's own; kept when svc builds its own list)",
  },
  {
    name: 'SVC_CA_CERT',
    group: 'network',
    description: 'a PEM bundle trusted besides the default roots (before the `ca_cert` key)',
  },
  {
    name: 'SVC_CLIENT_CERT',
    group: 'network',
    description: 'client certificate (PEM) for mutual TLS, HTTP and WebSocket (before the `client_cert` key)',
  },
  {
    name: 'SVC_CLIENT_KEY',
    group: 'network',
    description: "the client certificate's private key (PEM; before `client_key`); warned about if others can read it",
  },
  {
    name: 'SVC_CONFIG_DIR',
    group: 'files',
    description: 'configuration folder (default $XDG_CONFIG_HOME/svc, i.e. ~/.config/svc; on Windows %APPDATA%\\svc)',
  },
  {
    name: 'SVC_DATA_DIR',
    group: 'files',
    description:
      'data folder: local conversations, the call log (logs/), the --emulator state (default $XDG_DATA_HOME/svc; ' +
      'on Windows %LOCALAPPDATA%\\svc)',
  },
  {
    name: 'SVC_CACHE_DIR',
    group: 'files',
    description:
      'start-up code cache (default $XDG_CACHE_HOME/svc, i.e. ~/.cache/svc; on Windows %LOCALAPPDATA%\\svc\\cache)',
  },
  {
    name: 'XDG_CONFIG_HOME',
    group: 'files',
    description: 'base of the default configuration folder (default ~/.config)',
  },
  { name: 'XDG_DATA_HOME', group: 'files', description: 'base of the default data folder (default ~/.local/share)' },
  { name: 'XDG_CACHE_HOME', group: 'files', description: 'base of the default cache folder (default ~/.cache)' },
  { name: 'WT_SESSION', group: 'output', description: 'set by Windows Terminal: 24-bit colour there' },
  { name: 'NO_COLOR', group: 'output', description: 'non-empty: no colour (also --no-color)' },
  {
    name: 'FORCE_COLOR',
    group: 'output',
    description: 'force colour on (1, 2, 3: 16, 256 or 16 million colours), 0: off',
  },
  { name: 'COLORTERM', group: 'output', description: 'truecolor or 24bit: the terminal shows 16 million colours' },
  { name: 'TERM', group: 'output', description: 'dumb: no colour and no live redraw (spinners, progress)' },
  { name: 'COLUMNS', group: 'output', description: 'table width when the terminal does not report one' },
  {
    name: 'SVC_NO_INPUT',
    group: 'output',
    description: '1: never ask (as --no-input): a command that would prompt exits 2 and names the flag that answers',
  },
  { name: 'CI', group: 'output', description: 'set (not 0/false) by CI systems: implies --no-input' },
  { name: 'SVC_DEBUG', group: 'output', description: 'non-empty: print the stack trace of an unexpected error' },
  {
    name: 'SVC_EMULATOR_STATE_DIR',
    group: 'emulator',
    description: 'state of the --emulator emulator (default $SVC_DATA_DIR/emulator)',
  },
  {
    name: 'SVC_EMULATOR_TOKEN_DELAY_MS',
    group: 'emulator',
    description: 'pause between streamed tokens of the --emulator emulator (default 12)',
  },
  {
    name: 'SVC_EMULATOR_REALTIME_PACE',
    group: 'emulator',
    description: "pace of the --emulator emulator's spoken answers: 1 real time (default), 0 at once (0 to 10)",
  },
  {
    name: 'SVC_EMULATOR_ADMIN_TOKEN',
    group: 'emulator',
    description: 'admin token of `svc emulator serve` and the `svc emulator` admin commands',
  },
  {
    name: 'SVC_EMULATOR_PID',
    group: 'emulator',
    description:
      'set by `eval "$(svc emulator serve --print-env &)"`: the server\'s process id, for `kill` ' +
      '(svc does not read it)',
  },
  {
    name: 'SVC_FFPROBE',
    group: 'tools',
    description: 'the ffprobe program used to check clips (default ffprobe on PATH)',
  },
  {
    name: 'SVC_COMPLETE_TIMEOUT_MS',
    group: 'tools',
    description: 'longest wait of shell completion for ids fetched from the API (default 1000 ms)',
  },
  { name: 'PATH', group: 'tools', description: 'where arecord, sox, ffmpeg and ffprobe are found' },
  { name: 'PATHEXT', group: 'tools', description: 'Windows: the extensions of programs found on PATH (sox.exe)' },
  {
    name: 'PULSE_SINK',
    group: 'tools',
    description: 'PulseAudio/PipeWire: the playback device speaker opens (set by --output-device for that device)',
  },
  { name: 'VISUAL', group: 'tools', description: 'the editor of svc templates edit (before EDITOR)' },
  { name: 'EDITOR', group: 'tools', description: 'the editor of svc templates edit when VISUAL is not set (else vi)' },
  {
    name: 'HOME',
    group: 'system',
    description: 'the home folder the default configuration, data and cache folders are under',
  },
  { name: 'USERPROFILE', group: 'system', description: 'the home folder on Windows when HOME is not set' },
  { name: 'APPDATA', group: 'system', description: 'Windows: base of the default configuration folder' },
  { name: 'LOCALAPPDATA', group: 'system', description: 'Windows: base of the default data and cache folders' },
  { name: 'TMPDIR', group: 'system', description: 'temporary files (an emulator without a state folder)' },
  {
    name: 'SVC_NO_BUNDLE',
    group: 'system',
    description: 'non-empty: run the ES modules in dist/ instead of the start-up bundle (development)',
  },
  {
    name: 'SVC_NO_COMPILE_CACHE',
    group: 'system',
    description: 'non-empty: do not use the start-up code cache (development)',
  },
] as const satisfies readonly EnvVar[];

export type EnvName = (typeof ENVIRONMENT)[number]['name'];

/** The value of a listed variable (a name not in ENVIRONMENT does not compile). */
export function readEnv(env: NodeJS.ProcessEnv, name: EnvName): string | undefined {
  return env[name];
}

/** svc's own secrets among environment variables: SVC_API_KEY, SVC_WEBHOOK_SECRET, SVC_EMULATOR_ADMIN_TOKEN … */
const SECRET_VARIABLE = /^SVC_\w*(API_KEY|SECRET|TOKEN)/;

/**
 * The environment of every process svc starts (a --tool-cmd, ffmpeg, ffprobe, arecord, the speaker's probe,
 * api_key_cmd): `env` without svc's secrets. A child that reads untrusted input (a model's arguments, a media file)
 * must not be able to hand the key on; test/repo/child-env.test.ts checks that every spawn passes it.
 */
export function childEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!SECRET_VARIABLE.test(k)) out[k] = v;
  return out;
}
