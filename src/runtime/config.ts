// Configuration and profiles. Reads parse the file directly (fast start-up); writes go through `conf`
// (atomic write, mode 0600 because the file may hold an API key). Precedence: flag > env > profile > default.
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDir, expandHome } from '../core/paths.js';
import { UsageError } from '../core/errors.js';
import { parseMaxRetries, parseTimeout } from '../core/global-options.js';
import type { FlagParser } from '../core/validate.js';
import { readEnv } from '../core/environment.js';
import type { NetworkInputs } from '../net/http.js';
import { INSECURE_HTTP_ENV, isLoopbackHost } from '../net/origin.js';
import { makeDirs } from 'svc-formats/make-dirs';

export const DEFAULT_BASE_URL = 'https://api.svc.ai';
export const DEFAULT_PROFILE = 'default';
export const CONFIG_FILE = 'config.json';

/** Settings a profile can hold (`svc config set KEY VALUE`). */
export const PROFILE_KEYS = [
  'base_url',
  'model',
  'timeout',
  'max_retries',
  'voice',
  'api_key',
  'api_key_cmd',
  'log',
  'log.retention_days',
  'budget.daily',
  'fetch.max_bytes',
  'proxy',
  'ca_cert',
  'client_cert',
  'client_key',
] as const;
/** a listed key, or mcp.NAME: the command line of an MCP server (`svc chat --mcp NAME`) */
export type ProfileKey = (typeof PROFILE_KEYS)[number] | `mcp.${string}`;
export type Profile = Partial<Record<ProfileKey, string>>;

export interface ConfigFile {
  current_profile?: string;
  profiles?: Record<string, Profile>;
}

export interface ResolvedConfig {
  profile: string;
  baseUrl: string;
  apiKey?: string;
  /** a command that prints the key (profile `api_key_cmd`), run when a request needs the key and none is above it */
  apiKeyCommand?: string;
  /** where the key came from, for `svc auth status` */
  apiKeySource?: 'env' | 'profile' | 'command' | 'emulator';
  model?: string;
  voice?: string;
  timeoutSec: number;
  maxRetries: number;
  dir: string;
  file: string;
  profileData: Profile;
  /** where connections go through and whom they trust (net/network.ts decides per connection) */
  network: NetworkInputs;

  /** the profile is in the config file (`default` always counts as existing) */
  profileExists: boolean;
  /** where the profile's name came from */
  profileSource: 'flag' | 'environment' | 'config' | 'default';
  /** the profiles the config file holds */
  profiles: string[];
}

/** Names a profile cannot have: keys every JavaScript object already has (`profiles.__proto__` is not a profile). */
const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf']);

/** A profile name that can be stored: letters, digits, _ . - (at most 64), and not a reserved name. */
export function checkProfileName(name: string, flag: string): string {
  if (!/^[\w.-]{1,64}$/.test(name) || RESERVED_NAMES.has(name))
    throw new UsageError(
      `${flag}: ${JSON.stringify(name)} is not allowed: a name of letters, digits, _, . or - (at most 64), ` +
        `not ${[...RESERVED_NAMES].join(', ')}`,
    );
  return name;
}

export interface ConfigInputs {
  env: NodeJS.ProcessEnv;
  flags: { profile?: string; baseUrl?: string; timeout?: number; maxRetries?: number; proxy?: string };
}

export function readConfigFile(dir: string): ConfigFile {
  try {
    return JSON.parse(readFileSync(join(dir, CONFIG_FILE), 'utf8')) as ConfigFile;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new UsageError(`cannot read ${join(dir, CONFIG_FILE)}: ${(err as Error).message}`);
  }
}

/** A file setting (empty is unset), its leading `~` the home. */
const pathSetting = (value: string | undefined, env: NodeJS.ProcessEnv): string | undefined =>
  value ? expandHome(value, env) : undefined;

export function resolveConfig({ env, flags }: ConfigInputs): ResolvedConfig {
  const dir = configDir(env);
  const file = readConfigFile(dir);
  const envProfile = readEnv(env, 'SVC_PROFILE');
  const profileSource = flags.profile
    ? 'flag'
    : envProfile
      ? 'environment'
      : file.current_profile
        ? 'config'
        : 'default';
  const profile = checkProfileName(
    flags.profile || envProfile || file.current_profile || DEFAULT_PROFILE,
    profileSource === 'flag' ? '--profile' : profileSource === 'environment' ? 'SVC_PROFILE' : 'current_profile',
  );
  const profiles = Object.keys(file.profiles ?? {});
  const profileExists = profile === DEFAULT_PROFILE || Object.hasOwn(file.profiles ?? {}, profile);
  const p = (profileExists && file.profiles?.[profile]) || {};
  // environment variables and profile values are checked like the flags they stand for (exit 2, named)
  const checked = (v: string | undefined, parse: FlagParser<number>, name: string) =>
    v === undefined || v === '' ? undefined : parse(String(v), name, undefined);
  const inProfile = (key: string) => `${key} (profile ${profile} in ${join(dir, CONFIG_FILE)})`;
  // SVC_API_KEY, then the profile's api_key_cmd, then its stored api_key
  const envKey = readEnv(env, 'SVC_API_KEY');
  const apiKeyCommand = !envKey && p.api_key_cmd ? p.api_key_cmd : undefined;
  const apiKey = envKey || (apiKeyCommand ? undefined : p.api_key) || undefined;
  return {
    profile,
    baseUrl: (flags.baseUrl || readEnv(env, 'SVC_BASE_URL') || p.base_url || DEFAULT_BASE_URL).replace(/\/+$/, ''),
    apiKey,
    apiKeyCommand,
    apiKeySource: envKey ? 'env' : apiKeyCommand ? 'command' : p.api_key ? 'profile' : undefined,
    model: readEnv(env, 'SVC_MODEL') || p.model,
    voice: p.voice,
    timeoutSec:
      flags.timeout ??
      checked(readEnv(env, 'SVC_TIMEOUT'), parseTimeout, 'SVC_TIMEOUT') ??
      checked(p.timeout, parseTimeout, inProfile('timeout')) ??
      60,
    maxRetries:
      flags.maxRetries ??
      checked(readEnv(env, 'SVC_MAX_RETRIES'), parseMaxRetries, 'SVC_MAX_RETRIES') ??
      checked(p.max_retries, parseMaxRetries, inProfile('max_retries')) ??
      2,
    dir,
    file: join(dir, CONFIG_FILE),
    profileData: p,
    network: {
      env,
      // --proxy over the profile's `proxy`; '' is "no proxy" (the environment's variables are read in net/network)
      proxy: flags.proxy ?? p.proxy,
      // files named in the config file or a quoted variable: no shell expanded their ~
      caCert: pathSetting(readEnv(env, 'SVC_CA_CERT') || p.ca_cert, env),
      clientCert: pathSetting(readEnv(env, 'SVC_CLIENT_CERT') || p.client_cert, env),
      clientKey: pathSetting(readEnv(env, 'SVC_CLIENT_KEY') || p.client_key, env),
    },

    profileExists,
    profileSource,
    profiles,
  };
}

/** SVC_ALLOW_INSECURE_HTTP=1 (or true, yes): plain http:// to a host that is not loopback is allowed. */
export function allowsInsecureHttp(env: NodeJS.ProcessEnv): boolean {
  return /^(1|true|yes)$/i.test(readEnv(env, INSECURE_HTTP_ENV) ?? '');
}

/**
 * Check the base URL before anything is sent: it must be http(s), and plain http only on loopback unless the user
 * opted in with SVC_ALLOW_INSECURE_HTTP=1 — otherwise the API key would cross the network in clear.
 */
export function checkBaseUrl(baseUrl: string, env: NodeJS.ProcessEnv): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`--base-url: ${baseUrl} is not allowed: an http:// or https:// URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(`--base-url: ${baseUrl} is not allowed: an http:// or https:// URL`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowsInsecureHttp(env)) {
    throw new UsageError(
      `--base-url: ${baseUrl} is not allowed: plain http:// would send the API key in clear to ${url.host}; ` +
        `use https://, a loopback address, or set ${INSECURE_HTTP_ENV}=1 to allow it`,
    );
  }
}

/** Open the config for writing through `conf` (loaded lazily: it costs ~70 ms to import). */
export async function openConfigStore(dir: string) {
  const { default: Conf } = await import('conf');
  makeDirs(dir, 0o700);
  chmodSync(dir, 0o700); // mkdir's mode applies only when it creates the folder; it holds the key
  const store = new Conf<ConfigFile>({
    cwd: dir,
    configName: 'config',
    projectName: 'svc',
    projectSuffix: '',
    configFileMode: 0o600,
    clearInvalidConfig: false,
  });
  return {
    path: store.path,
    read: (): ConfigFile => store.store,
    setProfileValue(profile: string, key: ProfileKey, value: string | undefined) {
      const profiles = { ...(store.get('profiles') ?? {}) };
      const next: Profile = { ...(profiles[profile] ?? {}) };
      if (value === undefined) delete next[key];
      else next[key] = value;
      profiles[profile] = next;
      store.set('profiles', profiles);
      chmodSync(store.path, 0o600); // conf's mode applies only when it creates the file
    },
    setCurrentProfile(profile: string) {
      store.set('current_profile', profile);
    },
    /** an empty profile, so that it exists (config use NAME --create) */
    createProfile(profile: string) {
      const profiles = { ...(store.get('profiles') ?? {}) };
      if (!Object.hasOwn(profiles, profile)) store.set('profiles', { ...profiles, [profile]: {} });
    },
  };
}

/** `sk-abc…wxyz` style: enough to recognise a key, never enough to use it. */
export function redactKey(key: string | undefined): string {
  if (!key) return '(none)';
  if (key.length <= 10) return '****';
  return `${key.slice(0, 3)}…${key.slice(-4)}`;
}
