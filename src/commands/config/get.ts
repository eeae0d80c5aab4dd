import { defineCommand } from '../../cmdutil/command.js';
import { readEnv } from '../../core/environment.js';
import { ExitCode } from '../../core/errors.js';
import { DEFAULT_RETENTION_DAYS } from '../../apilog/log.js';
import { DEFAULT_FETCH_MAX_BYTES } from '../../cmdutil/fetch-url.js';
import { DEFAULT_LANGUAGE_MODEL } from '../../cmdutil/flag-sets.js';
import { defaultVoice } from '../../endpoints/voices.js';
import { DEFAULT_BASE_URL } from '../../runtime/config.js';
import type { Context } from '../../runtime/context.js';
import { checkKey, shownValue, type SettableKey } from './keys.js';

/** Per key: the global flag and the environment variable above the profile, and the default below it. */
const LAYERS: Partial<
  Record<SettableKey, { flag?: 'baseUrl' | 'timeout' | 'maxRetries' | 'proxy'; env?: string; def?: string }>
> = {
  base_url: { flag: 'baseUrl', env: 'SVC_BASE_URL', def: DEFAULT_BASE_URL },
  timeout: { flag: 'timeout', env: 'SVC_TIMEOUT', def: '60' },
  max_retries: { flag: 'maxRetries', env: 'SVC_MAX_RETRIES', def: '2' },
  model: { env: 'SVC_MODEL', def: DEFAULT_LANGUAGE_MODEL },
  // the API's own default: a request without a voice is spoken with it (read from api-facts when asked)
  voice: {
    get def() {
      return defaultVoice();
    },
  },
  log: { def: 'true' },
  'log.retention_days': { def: String(DEFAULT_RETENTION_DAYS) },
  'fetch.max_bytes': { def: String(DEFAULT_FETCH_MAX_BYTES) },
  proxy: { flag: 'proxy' },
  ca_cert: { env: 'SVC_CA_CERT' },
  client_cert: { env: 'SVC_CLIENT_CERT' },
  client_key: { env: 'SVC_CLIENT_KEY' },
};

type Source = 'flag' | 'environment' | 'profile' | 'default' | 'unset';

/** The value that applies and where it came from (flag > environment > profile > default). */
function lookUp(ctx: Context, key: SettableKey): { value?: string; source: Source; def?: string; from?: string } {
  const layer = LAYERS[key] ?? {};
  const flagValue = layer.flag ? ctx.globals[layer.flag] : undefined;
  if (flagValue !== undefined && (flagValue !== '' || key === 'proxy'))
    return { value: String(flagValue), source: 'flag', def: layer.def };
  const envValue = layer.env ? readEnv(ctx.env, layer.env as Parameters<typeof readEnv>[1]) : undefined;
  if (envValue) return { value: envValue, source: 'environment', def: layer.def, from: layer.env };
  const set = ctx.config().profileData[key];
  if (set !== undefined) return { value: set, source: 'profile', def: layer.def };
  return layer.def !== undefined ? { value: layer.def, source: 'default', def: layer.def } : { source: 'unset' };
}

export default defineCommand({
  description:
    'Prints the value that applies, wherever it comes from (flag > environment > profile > default); when it ' +
    "is not the profile's own, a note on stderr says where it came from and the default. A key with no value " +
    'at all exits 5 with a message. --json: {"key", "value", "source", "default"} (source: flag, environment, ' +
    'profile, default or unset).',
  args: [
    { name: 'key', description: 'a key of `svc config set` (base_url, model, voice, timeout, …)', required: true },
  ],
  examples: ['svc config get model', 'svc config get base_url --json'],
  async run(ctx, [raw]) {
    const key = checkKey(raw);
    const cfg = ctx.config();
    const found = lookUp(ctx, key);
    const { source, def, from } = found;
    // a proxy URL's password never shows
    const value = found.value === undefined ? undefined : shownValue(key, found.value);
    if (ctx.out.json) ctx.out.printJson({ key, value: value ?? null, source, default: def ?? null });
    if (value === undefined) {
      ctx.out.error(`${key} is not set in profile ${cfg.profile}, and has no default`);
      return ExitCode.notFound;
    }
    if (ctx.out.json) return 0;
    ctx.out.line(value);
    const where =
      source === 'environment' ? `the environment (${from})` : source === 'flag' ? 'the command line' : 'the default';
    if (source !== 'profile')
      ctx.out.info(`note: from ${where}, not profile ${cfg.profile}${def !== undefined ? `; default: ${def}` : ''}`);
    else if (def !== undefined) ctx.out.info(`note: from profile ${cfg.profile}; default: ${def}`);
    return 0;
  },
});
