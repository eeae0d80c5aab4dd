// POST /v1/documents/search.
import type { JsonBody, JsonReply } from './api-shapes.js';
import type { HttpClient } from '../net/http.js';
import { expectArray } from './guard.js';
import { SCHEMAS } from 'svc-formats/api-facts';

export const RETRIEVAL_MODES = SCHEMAS.RetrievalMode['$.type'].enum;

export type SearchMatch = JsonReply<'searchDocuments'>['matches'][number];

export type SearchRequest = JsonBody<'searchDocuments'>;

export async function searchDocuments(
  http: HttpClient,
  body: SearchRequest,
  signal?: AbortSignal,
): Promise<{ matches: SearchMatch[] }> {
  const res = await http.json<{ matches: SearchMatch[] }>('POST', '/v1/documents/search', { json: body, signal });
  expectArray(res, 'matches', 'document search');
  return res;
}
