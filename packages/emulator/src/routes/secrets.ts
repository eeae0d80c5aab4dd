// POST /v1/realtime/client_secrets {expires_after?: {seconds 1..3600, default 600}, session?} → {value,
// expires_at}. Stored as {value, expires_at, key, session} in `client_secrets`; server.ts accepts them as
// bearer tokens or `svc-client-secret.<value>` subprotocols on WebSockets until they expire.
import type { Router } from '../http/router.js';
import { invalid } from '../core/errors.js';

export interface ClientSecretRecord {
  value: string;
  expires_at: number;
  key: string;
  session?: Record<string, unknown>;
}

export function register(router: Router): void {
  router.post('/v1/realtime/client_secrets', async (req, res, core) => {
    const raw = await req.body(1024 * 1024);
    let body: Record<string, any> = {};
    if (raw.length && raw.toString('utf8').trim() !== '') {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch (err) {
        invalid(`The body is not JSON: ${(err as Error).message}`);
      }
      if (!body || typeof body !== 'object' || Array.isArray(body)) invalid('The body must be a JSON object');
    }
    let seconds = 600;
    if (body.expires_after !== undefined && body.expires_after !== null) {
      const s = body.expires_after.seconds;
      if (typeof s !== 'number' || !Number.isInteger(s) || s < 1 || s > 3600)
        invalid(`Invalid value for \`expires_after.seconds\`: ${JSON.stringify(s)}; must be an integer from 1 to 3600`);
      seconds = s;
    }
    if (
      body.session !== undefined &&
      (typeof body.session !== 'object' || body.session === null || Array.isArray(body.session))
    )
      invalid('Invalid value for `session`: expected an object');
    const rec: ClientSecretRecord = {
      value: `svc-cs-${core.random(24, 'client-secret').toString('base64url')}`,
      expires_at: core.nowSec() + seconds,
      key: req.key!.key,
      ...(body.session ? { session: body.session } : {}),
    };
    const secrets = core.store.collection<ClientSecretRecord>('client_secrets');
    // forget expired secrets while here
    for (const [v, s] of secrets) if (s.expires_at < core.nowSec()) secrets.delete(v);
    secrets.set(rec.value, rec);
    core.store.save();
    res.json(200, { value: rec.value, expires_at: rec.expires_at });
  });
}
