// API keys of the emulator, with ACLs and the blocked / disabled / team-blocked cases.
import { createHash, randomBytes } from 'node:crypto';
import type { RateLimit } from './rate-limit.js';

export interface KeyRecord {
  key: string;
  api_key_id: string;
  name: string;
  user_id: string;
  team_id: string;
  acls: string[];
  api_key_blocked: boolean;
  api_key_disabled: boolean;
  team_blocked: boolean;
  create_time: string;
  modify_time: string;
  modified_by: string;
  /** the key's own rate limit (fixtures `rate_limit`), over the emulator's `--rate-limit` */
  rate_limit?: RateLimit;
}

/** The key the emulator always accepts (used by `--emulator`); it is not secret, but still never printed. */
export const DEFAULT_EMULATOR_KEY = 'svc-emulator-local-key-0000000000000000';

export function makeKey(partial: Partial<KeyRecord> & { key?: string } = {}): KeyRecord {
  const key = partial.key ?? `svc-emu-${randomBytes(18).toString('hex')}`;
  const id = createHash('sha256').update(key).digest('hex').slice(0, 12);
  const now = String(Math.floor(Date.now() / 1000));
  return {
    key,
    api_key_id: `key_${id}`,
    name: partial.name ?? 'emulator key',
    user_id: partial.user_id ?? 'user_emulator',
    team_id: partial.team_id ?? 'team_emulator',
    acls: partial.acls ?? ['api-key:endpoint:*', 'api-key:model:*'],
    api_key_blocked: partial.api_key_blocked ?? false,
    api_key_disabled: partial.api_key_disabled ?? false,
    team_blocked: partial.team_blocked ?? false,
    create_time: partial.create_time ?? now,
    modify_time: partial.modify_time ?? now,
    modified_by: partial.modified_by ?? partial.user_id ?? 'user_emulator',
    ...(partial.rate_limit !== undefined ? { rate_limit: partial.rate_limit } : {}),
  };
}

export function redactedKey(key: string): string {
  return key.length <= 10 ? '****' : `${key.slice(0, 3)}…${key.slice(-4)}`;
}

/** Does the key's ACL list cover this endpoint (`api-key:endpoint:<name>`)? */
export function aclAllowsEndpoint(rec: KeyRecord, endpoint: string): boolean {
  return rec.acls.includes('api-key:endpoint:*') || rec.acls.includes(`api-key:endpoint:${endpoint}`);
}

/** Does the key's ACL list cover this model (`api-key:model:<id>`)? */
export function aclAllowsModel(rec: KeyRecord, model: string): boolean {
  return rec.acls.includes('api-key:model:*') || rec.acls.includes(`api-key:model:${model}`);
}

/** Agents and phone numbers need agent access: `api-key:endpoint:agents` or the wildcard. */
export function hasAgentAccess(rec: KeyRecord): boolean {
  return aclAllowsEndpoint(rec, 'agents');
}
