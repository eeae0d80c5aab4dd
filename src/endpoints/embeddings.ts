// POST /v1/embeddings (at most 128 inputs per request).
import type { JsonReply } from './api-shapes.js';
import type { HttpClient } from '../net/http.js';
import { expectArray } from './guard.js';

export const MAX_INPUTS_PER_REQUEST = 128;

export type EmbeddingEntry = EmbeddingResponse['data'][number];

export type EmbeddingResponse = JsonReply<'createEmbeddings'>;

export async function createEmbeddings(
  http: HttpClient,
  body: { model: string; input: string[]; dimensions?: number; encoding_format?: string; user?: string },
  signal?: AbortSignal,
): Promise<EmbeddingResponse> {
  const res = await http.json<EmbeddingResponse>('POST', '/v1/embeddings', { json: body, signal });
  expectArray(res, 'data', 'embeddings');
  return res;
}

/**
 * Any number of inputs: split into requests of at most 128, sent one after another, re-joined in input order
 * (each entry's `index` becomes its position in the whole input).
 */
export async function embedAll(
  http: HttpClient,
  body: { model: string; input: string[]; dimensions?: number; encoding_format?: string; user?: string },
  opts: { signal?: AbortSignal; onBatch?(done: number, total: number): void } = {},
): Promise<{ data: EmbeddingEntry[]; model?: string; usage: { prompt_tokens: number; total_tokens: number } }> {
  const out: EmbeddingEntry[] = [];
  const usage = { prompt_tokens: 0, total_tokens: 0 };
  let model: string | undefined;
  for (let start = 0; start < body.input.length; start += MAX_INPUTS_PER_REQUEST) {
    const batch = body.input.slice(start, start + MAX_INPUTS_PER_REQUEST);
    const res = await createEmbeddings(http, { ...body, input: batch }, opts.signal);
    if (res.data.length !== batch.length) {
      const { ProtocolError } = await import('../core/errors.js');
      throw new ProtocolError(`the embeddings reply has ${res.data.length} vectors for ${batch.length} inputs`);
    }
    const sorted = [...res.data].sort((a, b) => a.index - b.index);
    for (const [i, e] of sorted.entries()) out.push({ ...e, index: start + i });
    usage.prompt_tokens += res.usage?.prompt_tokens ?? 0;
    usage.total_tokens += res.usage?.total_tokens ?? 0;
    model ??= res.model;
    opts.onBatch?.(Math.min(start + MAX_INPUTS_PER_REQUEST, body.input.length), body.input.length);
  }
  return { data: out, model, usage };
}
