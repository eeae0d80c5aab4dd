// Simulated SIP calls. A call exists while it is active; refer and hang-up end it. An inbound call on a v2
// number with a webhook announces itself with `realtime.call.incoming`, signed as Standard Webhooks
// (packages/formats/src/webhooks.ts). `startInboundCall` is shared by the admin route and the realtime emulator.
import type { Backend } from '../state/backend.js';
import { HttpError } from '../core/errors.js';
import { signedHeaders } from 'svc-formats/webhooks';
import { phoneNumbersV1, phoneNumbersV2 } from './phone-numbers.js';

export interface CallRecord {
  call_id: string;
  status: 'active' | 'ended';
  from: string;
  to: string;
  phone_number_id: string | null;
  /** Unix seconds */
  created_at: number;
  team_id?: string;
  agent_id?: string | null;
  ended_at?: string;
  ended_by?: string;
  transferred_to?: string;
  /** what the simulated caller says in a realtime session (see routes/realtime.ts) */
  caller_script?: string | string[];
}

export interface WebhookDelivery {
  event_id: string;
  url: string;
  /** HTTP status of the receiver, when it answered */
  status?: number;
  delivered: boolean;
  error?: string;
}

export interface InboundCallOptions {
  phone_number_id?: string;
  from?: string;
  caller_script?: string | string[];
  /** deliver the webhook here instead of the number's registered URL (signed with the number's secret) */
  webhook_url?: string;
}

export function calls(core: Backend) {
  return core.store.collection<CallRecord>('calls');
}

/** The call if it exists and is active. */
export function activeCall(core: Backend, id: string): CallRecord | undefined {
  const c = calls(core).get(id);
  return c && c.status === 'active' ? c : undefined;
}

export function endCall(
  core: Backend,
  id: string,
  by: string,
  extra: Partial<CallRecord> = {},
): CallRecord | undefined {
  const c = calls(core).get(id);
  if (!c) return undefined;
  const next: CallRecord = { ...c, ...extra, status: 'ended', ended_at: new Date().toISOString(), ended_by: by };
  calls(core).set(id, next);
  core.store.save();
  return next;
}

export function incomingEvent(core: Backend, call: CallRecord): Record<string, unknown> {
  return {
    object: 'event',
    id: core.id('evt'),
    type: 'realtime.call.incoming',
    created_at: core.nowSec(),
    data: {
      call_id: call.call_id,
      sip_headers: [
        { name: 'From', value: `<sip:${call.from}@sip.emulator.invalid>` },
        { name: 'To', value: `<sip:${call.to}@sip.emulator.invalid>` },
        { name: 'Call-ID', value: call.call_id },
      ],
      metadata: {},
    },
  };
}

/** POST a signed event to a URL (one attempt, 10 s timeout); reports what happened. */
export async function deliverWebhook(
  url: string,
  secret: string,
  event: Record<string, unknown>,
): Promise<WebhookDelivery> {
  const body = JSON.stringify(event);
  const id = String(event.id);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'svc-emulator-webhooks',
        ...signedHeaders(secret, id, body),
      },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer().catch(() => undefined);
    return { event_id: id, url, status: res.status, delivered: res.ok };
  } catch (err) {
    return { event_id: id, url, delivered: false, error: (err as Error).message };
  }
}

/**
 * Start a simulated inbound call. With `phone_number_id` the call goes to that number (v2 or v1, 404 when
 * unknown); without, to the newest v2 number that has a webhook (else any number, else a placeholder).
 * When the number has a webhook, `realtime.call.incoming` is delivered before this resolves.
 */
export async function startInboundCall(
  core: Backend,
  opts: InboundCallOptions = {},
): Promise<{ call: CallRecord; webhook: WebhookDelivery | null }> {
  const v2 = [...phoneNumbersV2(core).values()];
  const v1 = [...phoneNumbersV1(core).values()];
  let number:
    | {
        phone_number_id: string;
        phone_number: string;
        team_id: string;
        agent_id: string | null;
        webhook?: { url: string; secret: string } | null;
      }
    | undefined;
  if (opts.phone_number_id !== undefined) {
    number = phoneNumbersV2(core).get(opts.phone_number_id) ?? phoneNumbersV1(core).get(opts.phone_number_id);
    if (!number) throw new HttpError(404, `Phone number ${opts.phone_number_id} not found`);
  } else {
    number = v2.reverse().find((p) => p.webhook) ?? v2[0] ?? v1[v1.length - 1];
  }
  const from = opts.from ?? '+14155550123';
  if (typeof from !== 'string' || !/^\+[1-9]\d{1,14}$/.test(from))
    throw new HttpError(400, `Invalid value for \`from\`: ${JSON.stringify(from)}; must be an E.164 number`);
  const call: CallRecord = {
    call_id: core.id('rtc'),
    status: 'active',
    from,
    to: number?.phone_number ?? '+15550100000',
    phone_number_id: number?.phone_number_id ?? null,
    created_at: core.nowSec(),
    ...(number ? { team_id: number.team_id, agent_id: number.agent_id } : {}),
    ...(opts.caller_script !== undefined ? { caller_script: opts.caller_script } : {}),
  };
  calls(core).set(call.call_id, call);
  core.store.save();
  let webhook: WebhookDelivery | null = null;
  if (opts.webhook_url && !number?.webhook)
    throw new HttpError(
      400,
      'The number has no webhook secret to sign with: register a v2 number with a webhook first',
    );
  if (number?.webhook) {
    const event = incomingEvent(core, call);
    core.emit('webhook', event); // for the contract checker of the test fixture (testing.ts)
    webhook = await deliverWebhook(opts.webhook_url ?? number.webhook.url, number.webhook.secret, event);
  }
  core.emit('call.incoming', call);
  return { call, webhook };
}
