// Phone numbers: v1 (/v1/phone-numbers) and v2 (/v2/phone-numbers).
import type { JsonBody, JsonReply, Schema } from './api-shapes.js';
import { seg, type HttpClient } from '../net/http.js';
import { ProtocolError } from '../core/errors.js';
import { expectFields } from './guard.js';
import { withReply } from '../term/reply.js';

/** a number of either generation (v1 and v2 share the commands' rows): its id, the rest as each sends it */
export type PhoneNumber = Schema<'PhoneNumberV2'> & Partial<Schema<'PhoneNumber'>>;

function unwrap(raw: unknown, what: string): PhoneNumber {
  const obj = raw as Record<string, unknown> | undefined;
  const pn = obj && typeof obj.phone_number === 'object' && obj.phone_number !== null ? obj.phone_number : obj;
  return withReply(expectFields(pn as PhoneNumber, ['phone_number_id'], what), raw);
}

/** A list reply as the API sent it, checked to hold a `phone_numbers` list. */
function listOf(
  raw: unknown,
  what: string,
): { phone_numbers: PhoneNumber[]; pagination_token?: string } & Record<string, unknown> {
  const obj = raw as Record<string, unknown> | undefined;
  if (!obj || typeof obj !== 'object' || !Array.isArray(obj.phone_numbers))
    throw new ProtocolError(`the ${what} reply has no \`phone_numbers\` list`);
  return obj as { phone_numbers: PhoneNumber[] } & Record<string, unknown>;
}

export async function buyNumber(
  http: HttpClient,
  body: { area_code: string; name: string; description?: string },
): Promise<PhoneNumber> {
  return unwrap(await http.json('POST', '/v1/phone-numbers', { json: body }), 'buy phone number');
}

export async function listNumbers(
  http: HttpClient,
  limit?: number,
): Promise<{ phone_numbers: PhoneNumber[] } & Record<string, unknown>> {
  return listOf(await http.json('GET', '/v1/phone-numbers', { query: { limit } }), 'phone number list');
}

export async function getNumber(http: HttpClient, id: string): Promise<PhoneNumber> {
  return unwrap(await http.json('GET', `/v1/phone-numbers/${seg(id)}`), 'phone number');
}

export async function updateNumber(
  http: HttpClient,
  id: string,
  body: { name?: string; description?: string; field_mask: { paths: string[] } },
): Promise<PhoneNumber> {
  return unwrap(await http.json('PATCH', `/v1/phone-numbers/${seg(id)}`, { json: body }), 'update phone number');
}

export async function releaseNumber(http: HttpClient, id: string): Promise<void> {
  const res = await http.request({ method: 'DELETE', path: `/v1/phone-numbers/${seg(id)}` });
  await res.body.dump();
}

export type V2CreateBody = JsonBody<'createPhoneNumberV2'>;

export type V2Created = JsonReply<'createPhoneNumberV2'>;

export async function createV2(http: HttpClient, body: V2CreateBody): Promise<V2Created> {
  const raw = await http.json<V2Created>('POST', '/v2/phone-numbers', { json: body });
  expectFields(raw, ['phone_number'], 'create phone number');
  expectFields(raw.phone_number, ['phone_number_id'], 'create phone number');
  return raw;
}

export async function listV2Page(
  http: HttpClient,
  q: { limit?: number; pagination_token?: string; agent_id?: string },
): Promise<{ phone_numbers: PhoneNumber[]; pagination_token?: string } & Record<string, unknown>> {
  return listOf(await http.json('GET', '/v2/phone-numbers', { query: q }), 'phone number list');
}

export async function deleteV2(http: HttpClient, id: string): Promise<void> {
  const res = await http.request({ method: 'DELETE', path: `/v2/phone-numbers/${seg(id)}` });
  await res.body.dump();
}
