// SIP call control: POST /v1/realtime/calls/{call_id}/refer and /hangup.
import { seg, type HttpClient } from '../net/http.js';

/** `tel:+<E.164>` (PSTN) or `sip:<user>@<host>` (SIP routing). */
export const TARGET_URI = /^(tel:\+[1-9]\d{1,14}|sip:[^@\s:;]+@[A-Za-z0-9.-]+(:\d{1,5})?(;[^\s]*)?)$/;

export async function referCall(http: HttpClient, callId: string, targetUri: string): Promise<unknown> {
  return (
    (await http.json('POST', `/v1/realtime/calls/${seg(callId)}/refer`, { json: { target_uri: targetUri } })) ?? {}
  );
}

export async function hangupCall(http: HttpClient, callId: string): Promise<unknown> {
  return (await http.json('POST', `/v1/realtime/calls/${seg(callId)}/hangup`)) ?? {};
}
