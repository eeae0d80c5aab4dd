// Custom voices: /v1/custom-voices (multipart create with the field `file`, list with pagination_token,
// get, update, delete) and /v1/custom-voices/{voice_id}/audio (the reference clip).
import type { Schema } from './api-shapes.js';
import { createReadStream } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { seg, type HttpClient, type HttpResponse } from '../net/http.js';
import { expectArray, expectFields } from './guard.js';

export type CustomVoice = Schema<'CustomVoice'>;

function quote(s: string): string {
  return s.replace(/["\\\r\n]/g, (c) => (c === '"' ? '%22' : c === '\\' ? '\\\\' : ' '));
}

/** A multipart body (fields first, then the file streamed from disk); a factory so a retry can resend it. */
export function multipartBody(
  fields: Record<string, string>,
  file: { path: string; filename: string; contentType: string },
) {
  const boundary = `----svc${randomBytes(12).toString('hex')}`;
  const head: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    head.push(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(k)}"\r\n\r\n${v}\r\n`);
  }
  head.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; ` +
      `filename="${quote(file.filename)}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
  );
  const prefix = Buffer.from(head.join(''), 'utf8');
  const suffix = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  async function* body(): AsyncIterable<Uint8Array> {
    yield prefix;
    for await (const chunk of createReadStream(file.path)) yield chunk as Buffer;
    yield suffix;
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, body };
}

export async function createCustomVoice(
  http: HttpClient,
  clip: { path: string; filename: string; contentType: string },
  name?: string,
): Promise<CustomVoice> {
  const mp = multipartBody(name !== undefined ? { name } : {}, clip);
  const res = await http.request({
    method: 'POST',
    path: '/v1/custom-voices',
    headers: { 'content-type': mp.contentType },
    body: mp.body,
  });
  return expectFields(await res.json<CustomVoice>(), ['voice_id'], 'create custom voice');
}

/** One page as the API sent it: `voices`, and `pagination_token` while another page exists. */
export async function listCustomVoicesPage(
  http: HttpClient,
  q: { limit?: number; pagination_token?: string },
): Promise<{ voices: CustomVoice[]; pagination_token?: string } & Record<string, unknown>> {
  const raw = (await http.json('GET', '/v1/custom-voices', { query: q })) as { voices: CustomVoice[] } & Record<
    string,
    unknown
  >;
  expectArray<CustomVoice>(raw, 'voices', 'custom voice list');
  return raw;
}

export async function getCustomVoice(http: HttpClient, id: string): Promise<CustomVoice> {
  return expectFields(
    await http.json<CustomVoice>('GET', `/v1/custom-voices/${seg(id)}`),
    ['voice_id'],
    'custom voice',
  );
}

export async function updateCustomVoice(http: HttpClient, id: string, body: { name: string }): Promise<CustomVoice> {
  return expectFields(
    await http.json<CustomVoice>('PATCH', `/v1/custom-voices/${seg(id)}`, { json: body }),
    ['voice_id'],
    'update custom voice',
  );
}

export async function deleteCustomVoice(http: HttpClient, id: string): Promise<{ deleted: boolean }> {
  return (await http.json<{ deleted: boolean }>('DELETE', `/v1/custom-voices/${seg(id)}`)) ?? { deleted: true };
}

export async function downloadCustomVoice(http: HttpClient, id: string): Promise<HttpResponse> {
  return http.request({ method: 'GET', path: `/v1/custom-voices/${seg(id)}/audio` });
}
