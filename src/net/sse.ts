// Server-sent events reader: any chunk boundary, CR/LF/CRLF, multi-line data, comments, event/id lines; and the
// checks of a streamed reply (content type, JSON events, the protocol's end marker).
import { IncompleteError, ProtocolError } from '../core/errors.js';
import { streamError } from './http.js';

export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/** Incremental parser; feed it text, take complete events out. */
export class SseParser {
  /** the pieces of the line not yet ended */
  private open: string[] = [];
  private data: string[] = [];
  private event?: string;
  private id?: string;
  private sawField = false;
  /** a trailing CR at a chunk boundary may be the first half of a CRLF */
  private pendingCR = false;

  push(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    let s = text;
    if (this.pendingCR) {
      if (s.startsWith('\n')) s = s.slice(1);
      this.pendingCR = false;
    }
    // a line still open is kept as pieces, joined once it ends: a huge line in small chunks stays linear
    let start = 0;
    for (let i = 0; i < s.length; i++) {
      const ch = s.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      const piece = s.slice(start, i);
      const line = this.open.length ? this.open.join('') + piece : piece;
      this.open = [];
      if (ch === 13) {
        if (i + 1 < s.length) {
          if (s.charCodeAt(i + 1) === 10) i++;
        } else {
          this.pendingCR = true;
        }
      }
      start = i + 1;
      const ev = this.line(line);
      if (ev) out.push(ev);
    }
    if (start < s.length) this.open.push(start === 0 ? s : s.slice(start));
    return out;
  }

  /** At the end of the stream: a final event without its blank line still counts. */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.open.length) {
      const ev = this.line(this.open.join(''));
      if (ev) out.push(ev);
      this.open = [];
    }
    const ev = this.line('');
    if (ev) out.push(ev);
    return out;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') {
      // As in the WHATWG rules: an event without any data line is not dispatched.
      const hasData = this.sawField;
      const ev: SseEvent = { data: this.data.join('\n') };
      if (this.event !== undefined) ev.event = this.event;
      if (this.id !== undefined) ev.id = this.id;
      this.data = [];
      this.event = undefined;
      this.sawField = false;
      return hasData ? ev : undefined;
    }
    if (line.startsWith(':')) return undefined; // comment / keep-alive
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        this.sawField = true;
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        this.id = value;
        break;
      default:
        break; // retry and unknown fields are ignored
    }
    return undefined;
  }
}

/** Every event of a byte stream, `data: [DONE]` included; invalid UTF-8 becomes U+FFFD. */
export async function* sseEvents(stream: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    yield* parser.push(text);
  }
  yield* parser.push(decoder.decode());
  yield* parser.end();
}

/** Read events from a byte stream until it ends or `data: [DONE]` arrives. */
export async function* readSse(stream: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  for await (const ev of sseEvents(stream)) {
    if (ev.data === '[DONE]') return;
    yield ev;
  }
}

/** Parse one event's data as JSON; anything else is a protocol error (not a lost connection). */
export function parseEventData<T>(ev: SseEvent, requestId?: string): T {
  try {
    return JSON.parse(ev.data) as T;
  } catch {
    throw new ProtocolError(
      `the stream sent an event that is not JSON: ${JSON.stringify(ev.data.slice(0, 200))}`,
      requestId,
    );
  }
}

export interface EventStreamReply {
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Uint8Array> & { text?(): Promise<string>; destroy?(err?: Error): unknown };
  requestId?: string;
  /** each event's data as read (net/http hands it to the call log) */
  event?(data: unknown): void;
  /** the stream did not end as its protocol says: why (net/http hands it to the call log) */
  failed?(reason: string): void;
}

export interface EventStreamOptions<T> {
  /** the protocol's end marker: true for the event that completes the stream (besides `data: [DONE]`) */
  completes(data: T, event?: string): boolean;
  /** stop reading at the end marker (protocols that send nothing after it) */
  stopAtEnd?: boolean;
  /** how the end marker is named in the note when it is missing */
  marker: string;
  signal?: AbortSignal;
}

/**
 * The JSON events of a streamed reply, checked against its protocol: the reply must be an event stream (a 200
 * with JSON, HTML or nothing to a streamed request is a protocol error), every event JSON, and the stream must
 * reach its end marker; a stream that ends without it throws IncompleteError after yielding what arrived.
 */
export async function* readEventStream<T>(
  res: EventStreamReply,
  opts: EventStreamOptions<T>,
): AsyncGenerator<{ event?: string; data: T }> {
  const contentType = String(
    Array.isArray(res.headers['content-type']) ? res.headers['content-type'][0] : (res.headers['content-type'] ?? ''),
  );
  if (!/^\s*text\/event-stream/i.test(contentType)) {
    const text = await readSome(res.body);
    const shown = text.trim() ? `: ${JSON.stringify(text.trim().slice(0, 200))}` : ' with an empty body';
    const err = new ProtocolError(
      `the server answered a streamed request with ` +
        `${contentType ? contentType.split(';')[0] : 'no content type'} instead of an event stream${shown}`,
      res.requestId,
    );
    res.failed?.(err.message);
    throw err;
  }
  let complete = false;
  try {
    for await (const ev of sseEvents(res.body)) {
      if (ev.data === '[DONE]') {
        complete = true;
        return;
      }
      if (ev.data === '') continue;
      const data = parseEventData<T>(ev, res.requestId);
      if (data === null || typeof data !== 'object' || Array.isArray(data)) {
        throw new ProtocolError(
          `the stream sent an event that is not a JSON object: ${JSON.stringify(ev.data.slice(0, 200))}`,
          res.requestId,
        );
      }
      if (opts.completes(data, ev.event)) complete = true;
      res.event?.(data);
      yield { event: ev.event, data };
      if (complete && opts.stopAtEnd) return;
    }
  } catch (err) {
    const e = streamError(err, res.requestId, opts.signal);
    res.failed?.(e.message);
    throw e;
  }
  if (!complete) {
    const e = new IncompleteError(
      `the stream ended before its end marker (${opts.marker}): the output is incomplete`,
      res.requestId,
    );
    res.failed?.(e.message);
    throw e;
  }
}

/**
 * A typed event stream (messages, responses): each event's `type`, taken from its `event:` line when the data has
 * none; complete once an event of one of `endTypes` arrived.
 */
export async function* readTypedEventStream<T extends { type?: unknown }>(
  res: EventStreamReply,
  opts: { endTypes: string[]; stopAtEnd?: boolean; signal?: AbortSignal },
): AsyncGenerator<T> {
  const typeOf = (data: T, event?: string) =>
    data && typeof data === 'object' && typeof data.type === 'string' ? data.type : event;
  const events = readEventStream<T>(res, {
    completes: (data, event) => opts.endTypes.includes(typeOf(data, event) ?? ''),
    stopAtEnd: opts.stopAtEnd,
    marker: opts.endTypes[0]!,
    signal: opts.signal,
  });
  for await (const ev of events) {
    const data = ev.data;
    if (data && typeof data === 'object' && typeof data.type !== 'string' && ev.event) data.type = ev.event;
    yield data;
  }
}

/** At most 64 KiB of a body that is not what was asked for, to show in the error. */
async function readSome(body: AsyncIterable<Uint8Array> & { destroy?(err?: Error): unknown }): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const c of body) {
      chunks.push(c);
      size += c.length;
      if (size >= 65_536) break;
    }
  } catch {
    // what arrived is enough to describe it
  }
  body.destroy?.();
  return Buffer.concat(chunks).toString('utf8');
}
