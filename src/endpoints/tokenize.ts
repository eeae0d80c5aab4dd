// POST /v1/tokenize-text.
import type { JsonReply } from './api-shapes.js';
import type { HttpClient } from '../net/http.js';
import { expectArray } from './guard.js';

export type Token = JsonReply<'tokenizeText'>['token_ids'][number];

export async function tokenizeText(
  http: HttpClient,
  body: { text: string; model: string },
  signal?: AbortSignal,
): Promise<{ token_ids: Token[] }> {
  const res = await http.json<{ token_ids: Token[] }>('POST', '/v1/tokenize-text', { json: body, signal });
  expectArray(res, 'token_ids', 'tokenization');
  return res;
}
