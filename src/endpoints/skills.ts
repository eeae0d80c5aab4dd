// Skills: zip archives (multipart field `files`), with list (cursor paging), get, delete and content.
import type { JsonReply, Schema } from './api-shapes.js';
import { seg, type HttpClient, type HttpResponse } from '../net/http.js';
import { buildMultipart, type MultipartPart } from '../net/multipart.js';
import { expectArray, expectFields } from './guard.js';

export const MAX_SKILL_BYTES = 50 * 1024 * 1024;

export type Skill = Schema<'Skill'>;

export type SkillList = JsonReply<'listSkills'>;

export async function uploadSkill(
  http: HttpClient,
  zip: { filename: string; path?: string; size: number; data?: Uint8Array },
  onProgress?: (sent: number, total: number) => void,
): Promise<Skill> {
  const part: MultipartPart = zip.data
    ? { name: 'files', filename: zip.filename, contentType: 'application/zip', data: zip.data }
    : { name: 'files', filename: zip.filename, contentType: 'application/zip', path: zip.path!, size: zip.size };
  const mp = buildMultipart([part], { onProgress });
  const res = await http.request({
    method: 'POST',
    path: '/v1/skills',
    headers: { 'content-type': mp.contentType, 'content-length': String(mp.contentLength) },
    body: mp.body,
  });
  return expectFields(await res.json<Skill>(), ['id'], 'skill upload');
}

export async function listSkills(
  http: HttpClient,
  q: { limit?: number; order?: string; after?: string },
): Promise<SkillList> {
  const raw = await http.json<SkillList>('GET', '/v1/skills', { query: { ...q } });
  expectArray(raw, 'data', 'skill list');
  return raw;
}

export async function getSkill(http: HttpClient, id: string): Promise<Skill> {
  return expectFields(await http.json<Skill>('GET', `/v1/skills/${seg(id)}`), ['id'], 'skill');
}

export async function deleteSkill(http: HttpClient, id: string): Promise<{ id: string; deleted: boolean }> {
  return expectFields(
    await http.json<{ id: string; deleted: boolean }>('DELETE', `/v1/skills/${seg(id)}`),
    ['deleted'],
    'skill delete',
  );
}

export function skillContent(http: HttpClient, id: string): Promise<HttpResponse> {
  return http.request({
    method: 'GET',
    path: `/v1/skills/${seg(id)}/content`,
    headers: { accept: 'application/zip, */*' },
  });
}
