// POST /v1/realtime/client_secrets: an ephemeral secret for browser-side realtime connections.
import type { JsonReply } from './api-shapes.js';
import type { HttpClient } from '../net/http.js';
import { expectFields } from './guard.js';

export type ClientSecret = JsonReply<'createClientSecret'>;

export async function createClientSecret(
  http: HttpClient,
  expiresAfterSec?: number,
  session?: Record<string, unknown>,
): Promise<ClientSecret> {
  const body: Record<string, unknown> = {};
  if (expiresAfterSec !== undefined) body.expires_after = { seconds: expiresAfterSec };
  if (session) body.session = session;
  const raw = await http.json<ClientSecret & { client_secret?: ClientSecret }>('POST', '/v1/realtime/client_secrets', {
    json: body,
  });
  // some deployments nest the secret: accept both
  return expectFields(
    raw?.client_secret && !raw.value ? raw.client_secret : raw,
    ['value', 'expires_at'],
    'client secret',
  );
}
