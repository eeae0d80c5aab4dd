// Configuration and profiles. Reads parse the file directly (fast start-up); writes go through `conf`
// (atomic write, mode 0600 because the file may hold an API key). Precedence: flag > env > profile > default.
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDir } from './paths.js';
import { UsageError } from './errors.js';

export const DEFAULT_BASE_URL = 'https://api.svc.ai';
export const DEFAULT_PROFILE = 'default';
export const CONFIG_FILE = 'config.json';

/** Settings a profile can hold (`svc config set KEY VALUE`). */
export const PROFILE_KEYS = ['base_url', 'model', 'timeout', 'max_retries', 'voice', 'api_key'] as const;
export type ProfileKey = (typeof PROFILE_KEYS)[number];
export type Profile = Partial<Record<ProfileKey, string>>;

export interface ConfigFile {
  current_profile?: string;
  profiles?: Record<string, Profile>;
}

export interface ResolvedConfig {
  profile: string;
  baseUrl: string;
  apiKey?: string;
  /** where the key came from, for `svc auth status` */
  apiKeySource?: 'env' | 'profile' | 'emulator';
  model?: string;
  voice?: string;
  timeoutSec: number;
  maxRetries: number;
  dir: string;
  file: string;
  profileData: Profile;
}

export interface ConfigInputs {
  env: NodeJS.ProcessEnv;
  flags: { profile?: string; baseUrl?: string; timeout?: number; maxRetries?: number };
}

export function readConfigFile(dir: string): ConfigFile {
  try {
    return JSON.parse(readFileSync(join(dir, CONFIG_FILE), 'utf8')) as ConfigFile;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new UsageError(`cannot read ${join(dir, CONFIG_FILE)}: ${(err as Error).message}`);
  }
}

export function resolveConfig({ env, flags }: ConfigInputs): ResolvedConfig {
  const dir = configDir(env);
  const file = readConfigFile(dir);
  const profile = flags.profile || env.SVC_PROFILE || file.current_profile || DEFAULT_PROFILE;
  const p = file.profiles?.[profile] ?? {};
  const num = (v: string | undefined) => (v === undefined || v === '' ? undefined : Number(v));
  const apiKey = env.SVC_API_KEY || p.api_key || undefined;
  return {
    profile,
    baseUrl: (flags.baseUrl || env.SVC_BASE_URL || p.base_url || DEFAULT_BASE_URL).replace(/\/+$/, ''),
    apiKey,
    apiKeySource: env.SVC_API_KEY ? 'env' : p.api_key ? 'profile' : undefined,
    model: env.SVC_MODEL || p.model,
    voice: p.voice,
    timeoutSec: flags.timeout ?? num(env.SVC_TIMEOUT) ?? num(p.timeout) ?? 60,
    maxRetries: flags.maxRetries ?? num(env.SVC_MAX_RETRIES) ?? num(p.max_retries) ?? 2,
    dir,
    file: join(dir, CONFIG_FILE),
    profileData: p,
  };
}

/** Open the config for writing through `conf` (loaded lazily: it costs ~70 ms to import). */
export async function openConfigStore(dir: string) {
  const { default: Conf } = await import('conf');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
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
  };
}

/** `sk-abc…wxyz` style: enough to recognise a key, never enough to use it. */
export function redactKey(key: string | undefined): string {
  if (!key) return '(none)';
  if (key.length <= 10) return '****';
  return `${key.slice(0, 3)}…${key.slice(-4)}`;
}
