// GET /v1/api-key and GET /v1/me.
import type { HttpClient } from '../net/http.js';
import { expectFields } from './guard.js';

export interface ApiKeyInfo {
  redacted_api_key: string;
  user_id: string;
  name: string;
  create_time: string;
  modify_time: string;
  modified_by: string;
  team_id: string;
  acls: string[];
  api_key_id: string;
  team_blocked: boolean;
  api_key_blocked: boolean;
  api_key_disabled: boolean;
}

export interface CallerIdentity {
  user_id: string;
  team_id: string;
  zdr_status: string;
  team_blocked: boolean;
  api_key: { redacted_api_key: string; api_key_id: string; blocked: boolean; disabled: boolean };
}

export async function getApiKey(http: HttpClient): Promise<ApiKeyInfo> {
  return expectFields(
    await http.json<ApiKeyInfo>('GET', '/v1/api-key'),
    ['redacted_api_key', 'team_id', 'acls'],
    'api key',
  );
}

export async function getMe(http: HttpClient): Promise<CallerIdentity> {
  return expectFields(await http.json<CallerIdentity>('GET', '/v1/me'), ['user_id', 'team_id'], 'caller identity');
}
