// POST /v1/documents/search.
import type { HttpClient } from '../net/http.js';
import { expectArray } from './guard.js';
import { SCHEMAS } from 'svc-formats/api-facts';

export const RETRIEVAL_MODES = SCHEMAS.RetrievalMode['$.type'].enum;
export type RetrievalMode = (typeof RETRIEVAL_MODES)[number];

export interface SearchMatch {
  file_id: string;
  chunk_id: string;
  chunk_content: string;
  score: number;
  collection_ids: string[];
  fields?: Record<string, string>;
  [field: string]: unknown;
}

export interface SearchRequest {
  query: string;
  source: { collection_ids: string[] };
  filter?: string;
  limit?: number;
  retrieval_mode?: { type: RetrievalMode };
}

export async function searchDocuments(
  http: HttpClient,
  body: SearchRequest,
  signal?: AbortSignal,
): Promise<{ matches: SearchMatch[] }> {
  const res = await http.json<{ matches: SearchMatch[] }>('POST', '/v1/documents/search', { json: body, signal });
  expectArray(res, 'matches', 'document search');
  return res;
}
