// SIP call control: POST /v1/realtime/calls/{call_id}/refer {target_uri} and /hangup (200 `{}`; 404 for an
// unknown call or one that has ended). Admin (no auth): POST /_emulator/calls {phone_number_id?, from?,
// caller_script?} starts a simulated inbound call (and delivers the signed webhook); GET /_emulator/calls
// and /_emulator/calls/{id} show calls with their status.
import { activeCall, calls, endCall, startInboundCall } from '../voice/calls.js';
import { MAX_JSON_BODY, parseJsonBody, type Router } from '../http/router.js';
import { invalid, notFound } from '../core/errors.js';

const TARGET_URI = /^(tel:\+[1-9]\d{1,14}|sip:[^@\s:;]+@[A-Za-z0-9.-]+(:\d{1,5})?(;\S*)?)$/;

export function register(router: Router): void {
  const callOf = (core: Parameters<typeof activeCall>[0], id: string, teamId: string | undefined) => {
    const c = activeCall(core, id);
    if (!c || (c.team_id !== undefined && c.team_id !== teamId)) notFound(`Call ${id} not found or no longer active`);
    return c;
  };

  router.post('/v1/realtime/calls/:id/refer', async (req, res, core) => {
    const call = callOf(core, req.params.id!, req.key?.team_id);
    const body = await req.json<Record<string, unknown>>();
    // target_uri: required by the document (request-check.ts); its form, a pattern, is worded here
    if (typeof body.target_uri !== 'string' || !TARGET_URI.test(body.target_uri)) {
      invalid(
        `Invalid value for \`target_uri\`: ${JSON.stringify(body.target_uri)}; must be tel:+<E.164> or ` +
          `sip:<user>@<host>`,
      );
    }
    endCall(core, call.call_id, 'refer', { transferred_to: body.target_uri });
    res.json(200, {});
  });

  router.post('/v1/realtime/calls/:id/hangup', async (req, res, core) => {
    const call = callOf(core, req.params.id!, req.key?.team_id);
    await req.body();
    endCall(core, call.call_id, 'hangup');
    res.json(200, {});
  });

  const admin = { auth: false } as const;
  router.post(
    '/_emulator/calls',
    async (req, res, core) => {
      // an empty body starts a call on the first number
      const raw = await req.body(MAX_JSON_BODY);
      const body = (raw.length ? parseJsonBody(raw, false) : {}) as Record<string, any>;
      const result = await startInboundCall(core, {
        phone_number_id: body.phone_number_id,
        from: body.from,
        caller_script: body.caller_script,
      });
      res.json(200, result);
    },
    admin,
  );
  router.get('/_emulator/calls', (_req, res, core) => res.json(200, { calls: [...calls(core).values()] }), admin);
  router.get(
    '/_emulator/calls/:id',
    (req, res, core) => {
      const c = calls(core).get(req.params.id!);
      if (!c) notFound(`Call ${req.params.id} not found`);
      res.json(200, c);
    },
    admin,
  );
}
