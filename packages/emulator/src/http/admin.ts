// The emulator's admin API under /_emulator/ (no API key; the admin token when one is set): health, the request
// log, faults, settings, keys, reset (which re-applies the fixtures), and triggers for events that otherwise wait
// for time or the outside world (an incoming call, a video or deferred completion finishing, a file expiring).
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { KeyRecord } from '../state/auth.js';
import { activeCall, endCall, startInboundCall } from '../voice/calls.js';
import type { Backend } from '../state/backend.js';
import type { LoggedRequest } from '../state/request-log.js';
import { FaultList, type Fault } from '../state/faults.js';
import type { Handler, Router } from './router.js';
import { HttpError, invalid, notFound } from '../core/errors.js';

export const TRIGGERS = [
  'incoming-call',
  'caller-says',
  'caller-hangup',
  'video-done',
  'deferred-ready',
  'file-expired',
] as const;

/** The log as a client may see it: filtered, and with every key the emulator knows replaced. */
function requestLog(core: Backend, q: URLSearchParams): LoggedRequest[] {
  const after = Number(q.get('after') ?? 0);
  const path = q.get('path');
  let pathRe: RegExp | undefined;
  if (path) {
    try {
      pathRe = new RegExp(path);
    } catch (err) {
      invalid(`Invalid value for \`path\`: ${(err as Error).message}`);
    }
  }
  const status = q.get('status');
  if (status && !/^[1-5](\d\d|xx)$/.test(status))
    invalid(`Invalid value for \`status\`: ${JSON.stringify(status)}; a status like 429 or a class like 4xx`);
  const matchesStatus = (s?: number) =>
    !status || (s !== undefined && (status.endsWith('xx') ? String(s)[0] === status[0] : String(s) === status));
  const list = core.requests.filter(
    (r) => r.seq > after && (!pathRe || pathRe.test(r.path)) && matchesStatus(r.status),
  );
  const keys = [...core.keys().keys()].filter((k) => k.length >= 8);
  let text = JSON.stringify(list);
  for (const k of keys) text = text.split(k).join('[REDACTED]');
  return JSON.parse(text) as LoggedRequest[];
}

function triggerFileExpired(core: Backend, id: string): Record<string, unknown> {
  const f = core.store.collection<{ id: string; expires_at: number | null }>('files').get(id);
  if (!f) notFound(`No file ${id}`);
  f.expires_at = core.nowSec() - 1;
  core.store.save();
  return { file_id: id, expires_at: f.expires_at };
}

function triggerVideoDone(core: Backend, id: string): Record<string, unknown> {
  const job = core.store.collection<{ ready_ms: number }>('video_jobs').get(id);
  if (!job) notFound(`No video request ${id}`);
  job.ready_ms = Math.min(job.ready_ms, core.now());
  core.store.save();
  return { request_id: id, ready: true };
}

function triggerDeferredReady(core: Backend, id: string): Record<string, unknown> {
  const rec = core.store.collection<{ ready_at: number }>('chat_deferred').get(id);
  if (!rec) notFound(`No deferred completion ${id}`);
  rec.ready_at = Math.min(rec.ready_at, core.now());
  core.store.save();
  return { request_id: id, ready: true };
}

/** `number`: a phone_number_id, or an E.164 number of a v1 or v2 number. */
function phoneNumberId(core: Backend, number: unknown): string | undefined {
  if (number === undefined || number === null) return undefined;
  if (typeof number !== 'string') invalid('Invalid value for `number`: expected a phone number id or an E.164 number');
  for (const name of ['phone_numbers_v2', 'phone_numbers']) {
    for (const p of core.store.collection<{ phone_number_id: string; phone_number: string }>(name).values()) {
      if (p.phone_number_id === number || p.phone_number === number) return p.phone_number_id;
    }
  }
  notFound(`No phone number ${number}`);
}

async function triggerIncomingCall(core: Backend, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (body.webhook !== undefined && (typeof body.webhook !== 'string' || !/^https?:\/\//.test(body.webhook)))
    invalid('Invalid value for `webhook`: expected an http(s) URL');
  const result = await startInboundCall(core, {
    phone_number_id: phoneNumberId(core, body.number),
    from: body.from as string | undefined,
    caller_script: body.caller_script as string | string[] | undefined,
    webhook_url: body.webhook as string | undefined,
  });
  return { call: result.call, webhook: result.webhook };
}

/** POST /_emulator/faults: one fault or a list, each checked before any is added. */
const addFaults: Handler = async (req, res, core) => {
  const body = await req.json<Fault | Fault[]>({ array: true });
  const list = Array.isArray(body) ? body : [body];
  try {
    list.forEach((f) => FaultList.check(f));
  } catch (err) {
    invalid(`Invalid fault: ${(err as Error).message}`);
  }
  for (const f of list) core.faults.add(f);
  res.json(200, { ok: true, faults: core.faults.list() });
};

/** POST /_emulator/settings: numbers of at least 0, merged into the settings. */
const changeSettings: Handler = async (req, res, core) => {
  const body = await req.json();
  for (const [k, v] of Object.entries(body))
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      invalid(`Invalid value for setting \`${k}\`: ${JSON.stringify(v)}; must be a number of at least 0`);
  Object.assign(core.settings, body);
  res.json(200, core.settings);
};

/** POST /_emulator/reset: empty state, log and faults; the default key and the fixtures again. */
const reset: Handler = async (_req, res, core) => {
  core.store.reset();
  core.requests.length = 0;
  core.faults.clear();
  core.rateLimits.reset();
  core.addKey({ key: core.defaultKey, name: 'default emulator key' });
  const fixtures = core.fixtures ? await core.fixtures() : undefined;
  res.json(200, { ok: true, ...(fixtures ? { fixtures } : {}) });
};

/** caller-says: the caller of an active call says `text` now, in the session that joined it (409 when none has). */
function triggerCallerSays(core: Backend, id: string, text: unknown): Record<string, unknown> {
  if (typeof text !== 'string' || !text.trim() || text.length > 4096)
    invalid('The trigger caller-says needs a `text` of 1 to 4096 characters');
  if (!activeCall(core, id)) notFound(`No active call ${id}`);
  if (!core.emit(`caller.says:${id}`, text))
    throw new HttpError(409, `No session has joined the call ${id} yet (svc calls join ${id})`);
  return { call_id: id, said: text };
}

/** caller-hangup: the caller of an active call hangs up now; the session on it closes (1000, call ended). */
function triggerCallerHangup(core: Backend, id: string): Record<string, unknown> {
  if (!activeCall(core, id)) notFound(`No active call ${id}`);
  const call = endCall(core, id, 'caller')!;
  core.emit(`caller.hangup:${id}`);
  return { call_id: id, status: call.status, ended_by: call.ended_by };
}

/** POST /_emulator/trigger/{kind}: what would otherwise wait for time or the outside world happens now. */
const trigger: Handler = async (req, res, core) => {
  const kind = req.params.kind!;
  const body = await req.json();
  const id = () => {
    if (typeof body.id !== 'string' || !body.id) invalid(`The trigger ${kind} needs an \`id\``);
    return body.id;
  };
  if (kind === 'incoming-call') return res.json(200, await triggerIncomingCall(core, body));
  if (kind === 'caller-says') return res.json(200, triggerCallerSays(core, id(), body.text));
  if (kind === 'caller-hangup') return res.json(200, triggerCallerHangup(core, id()));
  if (kind === 'video-done') return res.json(200, triggerVideoDone(core, id()));
  if (kind === 'deferred-ready') return res.json(200, triggerDeferredReady(core, id()));
  if (kind === 'file-expired') return res.json(200, triggerFileExpired(core, id()));
  notFound(`No trigger ${kind}; triggers: ${TRIGGERS.join(', ')}`);
};

/**
 * The event loop's longest hold since the last health reply (ms): one histogram per process (10 ms resolution), so a
 * test or a user can see that no request held the server (issue 26: none over ~100 ms).
 */
let loopDelay: IntervalHistogram | undefined;
function loopMaxDelayMs(): number {
  const h = (loopDelay ??= enabled(monitorEventLoopDelay({ resolution: 10 })));
  const max = h.count > 0 ? h.max / 1e6 : 0;
  h.reset();
  return Math.round(max);
}
const enabled = (h: IntervalHistogram) => (h.enable(), h);

export function registerAdminRoutes(router: Router): void {
  const admin = { auth: false } as const;
  loopMaxDelayMs();
  router.get(
    '/_emulator/health',
    (_req, res, core) =>
      res.json(200, {
        status: 'ok',
        url: core.url,
        ws_url: core.wsUrl,
        seed: core.seed ?? null,
        event_loop_max_delay_ms: loopMaxDelayMs(),
      }),
    admin,
  );
  router.get('/_emulator/requests', (req, res, core) => res.json(200, requestLog(core, req.query)), admin);
  router.delete(
    '/_emulator/requests',
    (_req, res, core) => {
      core.requests.length = 0;
      res.json(200, { cleared: true });
    },
    admin,
  );
  router.post('/_emulator/faults', addFaults, admin);
  router.get('/_emulator/faults', (_req, res, core) => res.json(200, { faults: core.faults.list() }), admin);
  router.delete(
    '/_emulator/faults',
    (_req, res, core) => {
      core.faults.clear();
      res.json(200, { ok: true });
    },
    admin,
  );
  router.post('/_emulator/settings', changeSettings, admin);
  router.post(
    '/_emulator/keys',
    async (req, res, core) => {
      const rec = core.addKey(await req.json<Partial<KeyRecord>>());
      res.json(200, rec);
    },
    admin,
  );
  router.post('/_emulator/reset', reset, admin);
  router.post('/_emulator/trigger/:kind', trigger, admin);
}
