// The settings a profile holds and how each value is checked. The API key is set only by `svc auth login`.
import { UsageError } from '../../core/errors.js';
import { didYouMean } from '../../core/suggest.js';
import { fail, integer, number } from '../../core/validate.js';
import { redactCredentials } from '../../net/http.js';
import { MCP_KEY, commandWords } from '../../cmdutil/mcp-command.js';
import { parseFetchMaxBytes } from '../../cmdutil/fetch-url.js';
import { PROFILE_KEYS, type ProfileKey } from '../../runtime/config.js';

/** A value as printed: a proxy URL without its password. */
export function shownValue(key: string, value: string): string {
  return key === 'proxy' ? redactCredentials(value) : value;
}

/** the profile's keys but api_key, which only `svc auth login` sets */
export const SETTABLE = PROFILE_KEYS.filter(
  (k): k is Exclude<(typeof PROFILE_KEYS)[number], 'api_key'> => k !== 'api_key',
);
/** the settable keys, and mcp.NAME: an MCP server's command line, for `svc chat --mcp NAME` */
export type SettableKey = Exclude<ProfileKey, 'api_key'>;

export function checkKey(raw: string): SettableKey {
  if (MCP_KEY.test(raw)) return raw as SettableKey;
  if (raw === 'api_key')
    throw new UsageError('api_key: set it with `svc auth login` (the key is never taken as an argument)');
  if (!(SETTABLE as readonly string[]).includes(raw))
    fail('KEY', raw, `one of ${SETTABLE.join(', ')}, mcp.NAME${didYouMean(raw, SETTABLE)}`);
  return raw as SettableKey;
}

export function checkValue(key: SettableKey, value: string): string {
  if (MCP_KEY.test(key)) {
    // a command line started without a shell: its quotes must close
    commandWords(value, key);
    return value;
  }
  switch (key) {
    case 'base_url':
      if (!/^https?:\/\/[^\s/]+/.test(value)) fail('base_url', value, 'an http(s) URL');
      return value.replace(/\/+$/, '');
    case 'timeout':
      return String(number({ min: 0, minExclusive: true, max: 86400 })(value, 'timeout', undefined));
    case 'max_retries':
      return String(integer({ min: 0, max: 10 })(value, 'max_retries', undefined));
    case 'api_key_cmd':
      // a command line run without a shell (runtime/key-command): its quotes must close
      if (
        !value.trim() ||
        (value.match(/'/g)?.length ?? 0) % 2 ||
        (value.replace(/\\./g, '').match(/"/g)?.length ?? 0) % 2
      ) {
        fail('api_key_cmd', value, 'a command line that prints the key (quotes closed), e.g. "pass show svc/key"');
      }
      return value;
    case 'log':
      if (!/^(true|false)$/.test(value)) fail('log', value, 'true or false');
      return value;
    case 'log.retention_days':
      return String(integer({ min: 1, max: 3650 })(value, 'log.retention_days', undefined));
    case 'fetch.max_bytes':
      return String(parseFetchMaxBytes(value, 'fetch.max_bytes', undefined));
    case 'budget.daily':
      return String(number({ min: 0, minExclusive: true, max: 1e9 })(value, 'budget.daily', undefined));
    case 'proxy':
      // '' is "no proxy" (the environment's proxy variables are then not read either)
      if (value !== '' && !/^(https?:\/\/)?[^\s/]+(:\d+)?\/?$/i.test(value))
        fail('proxy', redactCredentials(value), "an http(s) proxy URL (http://[user:password@]host:port) or ''");
      return value;
    default:
      if (!value) fail(key, value, 'a non-empty value');
      return value;
  }
}
