import { describe, expect, it } from 'vitest';
import { SseParser, readEventStream, readSse } from '../../src/net/sse.js';

async function* chunks(parts: string[]) {
  for (const p of parts) yield new TextEncoder().encode(p);
}

async function collect(parts: string[]) {
  const out = [];
  for await (const ev of readSse(chunks(parts))) out.push(ev);
  return out;
}

const STREAM =
  'event: response.created\ndata: {"a":1}\n\n: keep-alive comment\n\ndata: line one\ndata: line two\n\nid: ' +
  '7\ndata: {"b":2}\n\ndata: [DONE]\n\ndata: after done\n\n';
const EXPECTED = [
  { event: 'response.created', data: '{"a":1}' },
  { data: 'line one\nline two' },
  { data: '{"b":2}', id: '7' },
];

describe('SSE reader', () => {
  it('parses events, comments, multi-line data, ids, and stops at [DONE]', async () => {
    expect(await collect([STREAM])).toEqual(EXPECTED);
  });

  it('gives the same events whatever the chunk boundaries', async () => {
    for (let i = 1; i < STREAM.length; i++) {
      expect(await collect([STREAM.slice(0, i), STREAM.slice(i)])).toEqual(EXPECTED);
    }
    expect(await collect(STREAM.split(''))).toEqual(EXPECTED);
  });

  it('accepts CRLF and lone CR line endings, split anywhere', async () => {
    const crlf = STREAM.replace(/\n/g, '\r\n');
    const cr = STREAM.replace(/\n/g, '\r');
    for (const s of [crlf, cr]) {
      expect(await collect([s])).toEqual(EXPECTED);
      for (let i = 1; i < s.length; i += 3) expect(await collect([s.slice(0, i), s.slice(i)])).toEqual(EXPECTED);
    }
  });

  it('splits multi-byte UTF-8 characters across chunks correctly', async () => {
    const bytes = new TextEncoder().encode('data: héllo wörld 🌍\n\n');
    async function* byteChunks() {
      for (const b of bytes) yield new Uint8Array([b]);
    }
    const out = [];
    for await (const ev of readSse(byteChunks())) out.push(ev);
    expect(out).toEqual([{ data: 'héllo wörld 🌍' }]);
  });

  it(
    'ignores an event line without data, strips one leading space only, and flushes a final unterminated ' + 'event',
    () => {
      const p = new SseParser();
      expect(p.push('event: ping\n\ndata:  two spaces\n\n')).toEqual([{ data: ' two spaces' }]);
      expect(p.push('data: tail')).toEqual([]);
      expect(p.end()).toEqual([{ data: 'tail' }]);
    },
  );
});

describe('readEventStream (the checks of a streamed reply)', () => {
  const reply = (parts: string[], contentType = 'text/event-stream') => ({
    headers: { 'content-type': contentType },
    body: chunks(parts),
    requestId: 'req_1',
  });
  const chat = {
    completes: (c: any) => !!c?.choices?.some((ch: any) => ch.finish_reason),
    marker: 'finish_reason or [DONE]',
  };
  async function drain(res: ReturnType<typeof reply>, opts = chat) {
    const got: unknown[] = [];
    try {
      for await (const ev of readEventStream(res, opts)) got.push(ev.data);
      return { got };
    } catch (err) {
      return { got, err: err as Error };
    }
  }

  it('ends quietly at [DONE] or after the end marker', async () => {
    expect((await drain(reply(['data: {"choices":[{"delta":{}}]}\n\ndata: [DONE]\n\n']))).err).toBeUndefined();
    expect((await drain(reply(['data: {"choices":[{"finish_reason":"stop"}]}\n\n']))).err).toBeUndefined();
  });

  it('keeps what arrived and throws IncompleteError when the stream ends without its marker', async () => {
    const r = await drain(reply(['data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n']));
    expect(r.got).toEqual([{ choices: [{ delta: { content: 'Hel' } }] }]);
    expect(r.err?.name).toBe('IncompleteError');
    expect(r.err?.message).toMatch(/ended before its end marker \(finish_reason or \[DONE\]\)/);
  });

  it('a 200 that is not an event stream is a protocol error that shows what came', async () => {
    for (const [ct, body, shown] of [
      ['application/json', '{"id":"x"}', /application\/json instead of an event stream: "\{\\"id\\":\\"x\\"\}"/],
      ['text/html', '<html>hi</html>', /text\/html instead of an event stream/],
      ['', '', /no content type instead of an event stream with an empty body/],
    ] as const) {
      const r = await drain(reply([body], ct));
      expect(r.err?.name).toBe('ProtocolError');
      expect(r.err?.message).toMatch(shown);
    }
  });

  it('an event that is not JSON is a protocol error, not a lost connection', async () => {
    const r = await drain(reply(['data: {"choices":[]}\n\ndata: <html>\n\n']));
    expect(r.err?.name).toBe('ProtocolError');
    expect(r.err?.message).toMatch(/not JSON: "<html>"/);
  });
});
