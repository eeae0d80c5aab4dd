// GET /v1/api-key and GET /v1/me.
import type { Schema } from './api-shapes.js';
import type { HttpClient } from '../net/http.js';
import { expectFields } from './guard.js';

export type ApiKeyInfo = Schema<'ApiKey'>;

export type CallerIdentity = Schema<'Me'>;

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
