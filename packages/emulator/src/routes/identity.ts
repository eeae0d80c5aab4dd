// GET /v1/api-key and GET /v1/me.
import { redactedKey } from '../state/auth.js';
import type { Router } from '../http/router.js';

export function register(router: Router): void {
  router.get('/v1/api-key', (req, res) => {
    const k = req.key!;
    res.json(200, {
      redacted_api_key: redactedKey(k.key),
      user_id: k.user_id,
      name: k.name,
      create_time: k.create_time,
      modify_time: k.modify_time,
      modified_by: k.modified_by,
      team_id: k.team_id,
      acls: k.acls,
      api_key_id: k.api_key_id,
      team_blocked: k.team_blocked,
      api_key_blocked: k.api_key_blocked,
      api_key_disabled: k.api_key_disabled,
    });
  });
  router.get('/v1/me', (req, res) => {
    const k = req.key!;
    res.json(200, {
      user_id: k.user_id,
      team_id: k.team_id,
      zdr_status: 'no_zdr',
      team_blocked: k.team_blocked,
      api_key: {
        redacted_api_key: redactedKey(k.key),
        api_key_id: k.api_key_id,
        blocked: k.api_key_blocked,
        disabled: k.api_key_disabled,
      },
    });
  });
}
