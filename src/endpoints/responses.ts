// The Responses convention: POST /v1/responses (JSON or the typed event stream), GET/DELETE /v1/responses/{id},
// GET /v1/responses/{id}/input_items and POST /v1/responses/compact. No terminal code here.
import type { JsonReply, Schema } from './api-shapes.js';
import { ApiError, IncompleteError } from '../core/errors.js';
import { seg, type HttpClient } from '../net/http.js';
import { readTypedEventStream } from '../net/sse.js';
import { expectArray, expectFields } from './guard.js';

export type InputItem = Schema<'InputItem'>;

export type ResponsesRequest = Schema<'ResponsesRequest'>;

export type OutputItem = Schema<'OutputItem'>;

export type ResponseUsage = Schema<'ResponseUsage'>;
type ChatStyleUsage = Schema<'ChatUsage'>;

export type ResponseObject = Schema<'Response'>;

export type ResponseEvent = Schema<'ResponseStreamEvent'>;

export type InputItemsPage = JsonReply<'listResponseInputItems'>;

export type CompactionResult = Schema<'Compaction'>;

export async function createResponse(
  http: HttpClient,
  body: ResponsesRequest,
  signal?: AbortSignal,
): Promise<ResponseObject> {
  const res = await http.json<ResponseObject>('POST', '/v1/responses', { json: { ...body, stream: false }, signal });
  return expectFields(res, ['id', 'output', 'status'], 'response');
}

/** The typed event stream (with or without `event:` lines); ends at `data: [DONE]` or the end of the body. */
export async function* streamResponseEvents(
  http: HttpClient,
  body: ResponsesRequest,
  signal?: AbortSignal,
): AsyncGenerator<ResponseEvent> {
  const res = await http.request({
    method: 'POST',
    path: '/v1/responses',
    json: { ...body, stream: true },
    signal,
    headers: { accept: 'text/event-stream' },
  });
  yield* readTypedEventStream<ResponseEvent>(res, {
    endTypes: ['response.completed', 'response.incomplete', 'response.failed', 'error'],
    signal,
  });
}

/** svc's own: the callbacks of a streamed response */
export interface StreamHandlers {
  onText?(delta: string): void;
  onReasoning?(delta: string): void;
  /** every event, known or not (for --json) */
  onEvent?(ev: ResponseEvent): void;
}

/**
 * Read a response stream to its end: text and reasoning deltas go to the handlers, the final response object
 * (from response.completed / incomplete) is returned. Unknown event types are skipped; an `error` event or
 * `response.failed` is an ApiError.
 */
export async function consumeResponseStream(
  events: AsyncIterable<ResponseEvent>,
  h: StreamHandlers = {},
): Promise<ResponseObject> {
  let final: ResponseObject | undefined;
  for await (const ev of events) {
    h.onEvent?.(ev);
    switch (ev.type) {
      case 'response.output_text.delta':
        if (typeof ev.delta === 'string') h.onText?.(ev.delta);
        break;
      case 'response.reasoning_summary_text.delta':
        if (typeof ev.delta === 'string') h.onReasoning?.(ev.delta);
        break;
      case 'response.completed':
      case 'response.incomplete':
        final = ev.response;
        break;
      case 'response.failed': {
        const e = ev.response?.error; // a free-form object in the document: its fields are checked
        const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
        throw new ApiError(500, text(e?.message) ?? 'the response failed', text(e?.code));
      }
      case 'error':
        throw new ApiError(500, ev.message ?? 'the stream reported an error', ev.code ?? undefined);
      default:
        break; // unknown and uninteresting types are skipped
    }
  }
  if (final) return final;
  throw new IncompleteError('the response stream ended before response.completed: the output is incomplete');
}

export async function getResponse(http: HttpClient, id: string): Promise<ResponseObject> {
  return expectFields(await http.json<ResponseObject>('GET', `/v1/responses/${seg(id)}`), ['id', 'output'], 'response');
}

export async function deleteResponse(
  http: HttpClient,
  id: string,
): Promise<{ id: string; object: string; deleted: boolean }> {
  return expectFields(
    await http.json<{ id: string; object: string; deleted: boolean }>('DELETE', `/v1/responses/${seg(id)}`),
    ['id', 'deleted'],
    'delete response',
  );
}

export async function listInputItems(
  http: HttpClient,
  id: string,
  q: { limit?: number; order?: string; after?: string },
): Promise<InputItemsPage> {
  const page = await http.json<InputItemsPage>('GET', `/v1/responses/${seg(id)}/input_items`, { query: q });
  expectArray(page, 'data', 'input items');
  return page;
}

export async function compactResponses(
  http: HttpClient,
  body: { model: string; input: string | InputItem[] },
): Promise<CompactionResult> {
  const res = await http.json<CompactionResult>('POST', '/v1/responses/compact', { json: body });
  expectArray(res, 'output', 'compaction');
  return res;
}

/** The visible text of a response: its message items' output_text parts. */
/**
 * A response's usage in the Responses shape: a retrieved response may carry it in the chat shape (prompt_tokens,
 * completion_tokens), which the document allows; read as such it printed `undefined input`.
 */
export function responseUsage(u: ResponseUsage | ChatStyleUsage | null | undefined): ResponseUsage | undefined {
  if (!u) return undefined;
  if (!('prompt_tokens' in u)) return u;
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  const cached = u.prompt_tokens_details?.cached_tokens;
  return {
    input_tokens: u.prompt_tokens,
    output_tokens: u.completion_tokens,
    total_tokens: u.total_tokens,
    ...(cached === undefined ? {} : { input_tokens_details: { cached_tokens: cached } }),
    ...(reasoning === undefined ? {} : { output_tokens_details: { reasoning_tokens: reasoning } }),
    ...(u.num_sources_used === undefined ? {} : { num_sources_used: u.num_sources_used }),
    ...(u.cost_in_usd_ticks === undefined ? {} : { cost_in_usd_ticks: u.cost_in_usd_ticks }),
  };
}

export function outputText(r: Pick<ResponseObject, 'output'>): string {
  let text = '';
  for (const item of r.output ?? []) {
    if (item.type !== 'message') continue;
    for (const part of item.content ?? [])
      if (part.type === 'output_text' && typeof part.text === 'string') text += part.text;
  }
  return text;
}

export function reasoningText(r: Pick<ResponseObject, 'output'>): string {
  return (r.output ?? [])
    .filter((i) => i.type === 'reasoning')
    .flatMap((i) => (i.summary ?? []).map((s) => s.text))
    .join('\n');
}

export function functionCalls(r: Pick<ResponseObject, 'output'>): OutputItem[] {
  return (r.output ?? []).filter((i) => i.type === 'function_call');
}
