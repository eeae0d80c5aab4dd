// POST /v1/chat/completions (synchronous, streamed, deferred) and GET /v1/chat/deferred-completion/{id}.
import type { Schema } from './api-shapes.js';
import { seg, type HttpClient } from '../net/http.js';
import { readEventStream } from '../net/sse.js';
import { expectFields } from './guard.js';

export type ContentPart = Exclude<ChatMessage['content'], string | null | undefined>[number];

export type ToolCall = Schema<'ToolCall'>;

export type ChatMessage = Schema<'Message'>;

export type ChatTool = Schema<'ChatTool'>;

export type ChatRequest = Schema<'ChatRequest'>;

export type ChatUsage = Schema<'ChatUsage'>;

export type ChatChoice = ChatResponse['choices'][number];

export type ChatResponse = Schema<'ChatResponse'>;

export type ChatChunk = Schema<'ChatResponseChunk'>;

export async function createChat(http: HttpClient, body: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
  const res = await http.json<ChatResponse>('POST', '/v1/chat/completions', {
    json: { ...body, stream: false },
    signal,
  });
  return expectFields(res, ['id', 'choices'], 'chat completion');
}

/** Stream chunks as they arrive. Once the first byte is in, nothing is retried: a drop is an error. */
export async function* streamChat(
  http: HttpClient,
  body: ChatRequest,
  signal?: AbortSignal,
): AsyncGenerator<ChatChunk> {
  const res = await http.request({
    method: 'POST',
    path: '/v1/chat/completions',
    json: { ...body, stream: true },
    signal,
    headers: { accept: 'text/event-stream' },
  });
  const events = readEventStream<ChatChunk>(res, {
    completes: (c) => !!c?.choices?.some?.((ch) => !!ch?.finish_reason),
    marker: 'finish_reason or [DONE]',
    signal,
  });
  for await (const ev of events) yield ev.data;
}

export async function createDeferredChat(
  http: HttpClient,
  body: ChatRequest,
  signal?: AbortSignal,
): Promise<{ request_id: string }> {
  return expectFields(
    await http.json<{ request_id: string }>('POST', '/v1/chat/completions', {
      json: { ...body, deferred: true, stream: false },
      signal,
    }),
    ['request_id'],
    'deferred chat',
  );
}

/** The result of a deferred completion: undefined while it is pending (202). */
export async function getDeferredChat(
  http: HttpClient,
  requestId: string,
  signal?: AbortSignal,
): Promise<ChatResponse | undefined> {
  const res = await http.request({
    method: 'GET',
    path: `/v1/chat/deferred-completion/${seg(requestId)}`,
    okStatuses: [202],
    signal,
  });
  if (res.status === 202) {
    await res.body.dump();
    return undefined;
  }
  return expectFields(await res.json<ChatResponse>(), ['id', 'choices'], 'deferred chat result');
}

/** Accumulate streamed tool-call deltas (by index) into whole calls. */
export class ToolCallAccumulator {
  private calls = new Map<number, ToolCall>();

  add(deltas: NonNullable<ChatChunk['choices'][number]['delta']['tool_calls']>): void {
    for (const d of deltas) {
      const cur = this.calls.get(d.index) ?? {
        id: '',
        type: 'function' as const,
        function: { name: '', arguments: '' },
      };
      if (d.id) cur.id = d.id;
      if (d.function?.name) cur.function.name += d.function.name;
      if (d.function?.arguments) cur.function.arguments += d.function.arguments;
      this.calls.set(d.index, cur);
    }
  }

  list(): ToolCall[] {
    return [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
  }
}
