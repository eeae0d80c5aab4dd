// POST /v1/messages: the third-party-compatible messages convention (JSON or its typed event stream).
import type { Schema } from './api-shapes.js';
import { ApiError, ProtocolError } from '../core/errors.js';
import type { HttpClient } from '../net/http.js';
import { readTypedEventStream } from '../net/sse.js';
import { expectFields } from './guard.js';

export type MessagesRequest = Schema<'MessagesRequest'>;

export type MessagesResponse = Schema<'MessagesResponse'>;

/** one streamed event as svc reads it: the document's StreamEvent is a free-form object */
export interface MessagesEvent {
  type: string;
  [field: string]: any;
}

export async function createMessage(
  http: HttpClient,
  body: MessagesRequest,
  signal?: AbortSignal,
): Promise<MessagesResponse> {
  return expectFields(
    await http.json<MessagesResponse>('POST', '/v1/messages', { json: { ...body, stream: false }, signal }),
    ['id', 'content'],
    'message',
  );
}

export async function* streamMessageEvents(
  http: HttpClient,
  body: MessagesRequest,
  signal?: AbortSignal,
): AsyncGenerator<MessagesEvent> {
  const res = await http.request({
    method: 'POST',
    path: '/v1/messages',
    json: { ...body, stream: true },
    signal,
    headers: { accept: 'text/event-stream' },
  });
  yield* readTypedEventStream<MessagesEvent>(res, { endTypes: ['message_stop'], stopAtEnd: true, signal });
}

/** Assemble the streamed events into the final message, calling onText for each text delta. */
export async function consumeMessageStream(
  events: AsyncIterable<MessagesEvent>,
  h: { onText?(t: string): void; onEvent?(ev: MessagesEvent): void } = {},
): Promise<MessagesResponse> {
  let msg: MessagesResponse | undefined;
  const blocks: Record<string, any>[] = [];
  const partial: string[] = [];
  for await (const ev of events) {
    h.onEvent?.(ev);
    switch (ev.type) {
      case 'message_start':
        msg = { ...ev.message, content: [] };
        break;
      case 'content_block_start':
        blocks[ev.index] = { ...ev.content_block };
        partial[ev.index] = '';
        break;
      case 'content_block_delta': {
        const b = blocks[ev.index];
        if (!b) break;
        if (ev.delta?.type === 'text_delta') {
          b.text = (b.text ?? '') + ev.delta.text;
          h.onText?.(ev.delta.text);
        } else if (ev.delta?.type === 'input_json_delta') partial[ev.index] += ev.delta.partial_json ?? '';
        break;
      }
      case 'content_block_stop': {
        const b = blocks[ev.index];
        if (b?.type === 'tool_use' && partial[ev.index]) {
          try {
            b.input = JSON.parse(partial[ev.index]!);
          } catch {
            b.input = partial[ev.index];
          }
        }
        break;
      }
      case 'message_delta':
        if (msg) {
          msg.stop_reason = ev.delta?.stop_reason ?? msg.stop_reason;
          msg.stop_sequence = ev.delta?.stop_sequence ?? msg.stop_sequence;
          if (ev.usage && msg.usage) msg.usage = { ...msg.usage, ...ev.usage };
        }
        break;
      case 'error':
        throw new ApiError(500, ev.error?.message ?? 'the stream reported an error', ev.error?.type);
      default:
        break; // ping and unknown types
    }
  }
  if (!msg) throw new ProtocolError('the message stream ended before message_start');
  msg.content = blocks.filter(Boolean) as MessagesResponse['content'];
  return msg;
}

export function messageText(m: Pick<MessagesResponse, 'content'>): string {
  return m.content
    .filter((b): b is { type: 'text'; text: string } => b.type === 'text')
    .map((b) => b.text)
    .join('');
}
