// The legacy text endpoints: POST /v1/completions and POST /v1/complete (not supported by reasoning models).
import type { Schema } from './api-shapes.js';
import type { HttpClient } from '../net/http.js';
import { readEventStream } from '../net/sse.js';
import { expectArray, expectFields } from './guard.js';

export type TextCompletionResponse = Schema<'TextCompletionResponse'>;

export type CompleteResponse = Schema<'CompleteResponse'>;

export async function createTextCompletion(
  http: HttpClient,
  body: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<TextCompletionResponse> {
  const res = await http.json<TextCompletionResponse>('POST', '/v1/completions', { json: body, signal });
  expectArray(res, 'choices', 'text completion');
  return res;
}

/** one streamed chunk as svc reads it: the document types the stream's data as a JSON text, not its shape */
export interface TextCompletionChunk {
  id: string;
  object: string;
  model: string;
  choices: { index: number; text: string; finish_reason: string | null; logprobs?: unknown }[];
  usage?: TextCompletionResponse['usage'];
  [field: string]: unknown;
}

/** `stream: true`: the chunks as they arrive; the stream must end with `[DONE]` (else it is incomplete: an error). */
export async function* streamTextCompletion(
  http: HttpClient,
  body: Record<string, unknown>,
  signal?: AbortSignal,
): AsyncGenerator<TextCompletionChunk> {
  const res = await http.request({
    method: 'POST',
    path: '/v1/completions',
    json: { ...body, stream: true },
    signal,
    headers: { accept: 'text/event-stream' },
  });
  const events = readEventStream<TextCompletionChunk>(res, { completes: () => false, marker: '[DONE]', signal });
  for await (const ev of events) yield ev.data;
}

export async function createComplete(
  http: HttpClient,
  body: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<CompleteResponse> {
  return expectFields(
    await http.json<CompleteResponse>('POST', '/v1/complete', { json: body, signal }),
    ['completion'],
    'complete',
  );
}

/** The human/assistant prompt format of /v1/complete. */
export function humanAssistantPrompt(text: string): string {
  return `\n\nHuman: ${text}\n\nAssistant:`;
}
