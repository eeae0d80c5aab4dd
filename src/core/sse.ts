// Server-sent events reader: any chunk boundary, CR/LF/CRLF, multi-line data, comments, event/id lines.
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/** Incremental parser; feed it text, take complete events out. */
export class SseParser {
  private buffer = '';
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
    this.buffer += s;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      const line = this.buffer.slice(start, i);
      if (ch === 13) {
        if (i + 1 < this.buffer.length) {
          if (this.buffer.charCodeAt(i + 1) === 10) i++;
        } else {
          this.pendingCR = true;
        }
      }
      start = i + 1;
      const ev = this.line(line);
      if (ev) out.push(ev);
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  /** At the end of the stream: a final event without its blank line still counts. */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.buffer.length) {
      const ev = this.line(this.buffer);
      if (ev) out.push(ev);
      this.buffer = '';
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

/** Read events from a byte stream until it ends or `data: [DONE]` arrives. */
export async function* readSse(stream: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    for (const ev of parser.push(text)) {
      if (ev.data === '[DONE]') return;
      yield ev;
    }
  }
  for (const ev of parser.push(decoder.decode()).concat(parser.end())) {
    if (ev.data === '[DONE]') return;
    yield ev;
  }
}

/** Parse each event's data as JSON; the event name, when present, is kept beside it. */
export async function* readJsonSse<T = unknown>(stream: AsyncIterable<Uint8Array | string>): AsyncGenerator<{ event?: string; data: T }> {
  for await (const ev of readSse(stream)) {
    if (ev.data === '') continue;
    let data: T;
    try {
      data = JSON.parse(ev.data) as T;
    } catch {
      throw new Error(`the stream sent an event that is not JSON: ${ev.data.slice(0, 200)}`);
    }
    yield { event: ev.event, data };
  }
}
