import { describe, expect, it } from 'vitest';
import { SseParser, readSse } from '../../src/core/sse.js';

async function* chunks(parts: string[]) {
  for (const p of parts) yield new TextEncoder().encode(p);
}

async function collect(parts: string[]) {
  const out = [];
  for await (const ev of readSse(chunks(parts))) out.push(ev);
  return out;
}

const STREAM = 'event: response.created\ndata: {"a":1}\n\n: keep-alive comment\n\ndata: line one\ndata: line two\n\nid: 7\ndata: {"b":2}\n\ndata: [DONE]\n\ndata: after done\n\n';
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

  it('ignores an event line without data, strips one leading space only, and flushes a final unterminated event', () => {
    const p = new SseParser();
    expect(p.push('event: ping\n\ndata:  two spaces\n\n')).toEqual([{ data: ' two spaces' }]);
    expect(p.push('data: tail')).toEqual([]);
    expect(p.end()).toEqual([{ data: 'tail' }]);
  });
});
