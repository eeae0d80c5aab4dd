// Fuzz of the event readers: the SSE reader (parser, JSON events, end markers, the chat/responses/messages
// checks) and the WebSocket reader (message framing into events, and the TTS, STT and realtime event typing)
// take generated inputs — random splits, garbage lines, huge lines, invalid UTF-8, truncated JSON, JSON that is
// not an object — and may only end in one of svc's classified errors, never an uncaught TypeError or RangeError.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { fullOr } from '../helpers/full.js';
import { ApiError, NetworkError, ProtocolError } from '../../src/core/errors.js';
import { SseParser, readEventStream, readTypedEventStream } from '../../src/net/sse.js';
import { WsConnection } from '../../src/net/ws.js';
import { TtsSocket } from '../../src/endpoints/tts.js';
import { SttSocket } from '../../src/endpoints/stt.js';
import { errorFromEvent } from '../../src/endpoints/realtime.js';
import { isAudioDelta } from '../../src/core/realtime-events.js';

/** A small seeded generator (xorshift32): the same inputs on every run. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(a: readonly T[]) => a[Math.floor(next() * a.length)]!,
  };
}

const EVENTS = [
  '{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}',
  '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
  '{"type":"response.output_text.delta","delta":"x"}',
  '{"type":"response.completed","response":{"id":"r","output":[]}}',
  '{"type":"message_stop"}',
  '{"type":"audio.delta","delta":"AAAA"}',
  '{"type":"audio.delta","delta":5}',
  '{"type":"audio.done"}',
  '{"type":"transcript.done","text":"t"}',
  '{"type":"error","message":"no"}',
  '{"type":"error","error":{"code":"not_found"}}',
  '{"type":"response.done","response":null}',
  'null',
  '[]',
  '42',
  '"str"',
  '{"type":',
  '{"choices":null}',
  '{"choices":[null]}',
  '{"type":{"nested":true}}',
  '[DONE]',
];
const GARBAGE = [
  '',
  ':comment',
  'event: message_stop',
  'id: 7',
  'retry: 10',
  'data',
  'data:',
  'nonsense',
  '\u0000\u001b[2J',
  'data: \ud800',
];

function randomBytes(r: ReturnType<typeof rng>, n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = r.int(256);
  return b;
}

/** One generated SSE body as byte chunks. */
function sseInput(r: ReturnType<typeof rng>): Uint8Array[] {
  const parts: string[] = [];
  const lines = 1 + r.int(8);
  for (let i = 0; i < lines; i++) {
    const roll = r.next();
    if (roll < 0.55) parts.push(`data: ${r.pick(EVENTS)}${r.pick(['\n\n', '\r\n\r\n', '\r\r', '\n'])}`);
    else if (roll < 0.8) parts.push(`${r.pick(GARBAGE)}${r.pick(['\n', '\r\n', '\r', ''])}`);
    else if (roll < 0.805)
      parts.push(`data: ${'x'.repeat(8_000 + r.int(24_000))}\n\n`); // a huge line
    else {
      const e = r.pick(EVENTS);
      parts.push(`data: ${e.slice(0, r.int(e.length + 1))}\n\n`); // truncated JSON
    }
  }
  let bytes: Uint8Array = new TextEncoder().encode(parts.join(''));
  if (r.next() < 0.2) {
    // invalid UTF-8 spliced in
    const at = r.int(bytes.length + 1);
    bytes = Buffer.concat([bytes.subarray(0, at), randomBytes(r, 1 + r.int(6)), bytes.subarray(at)]);
  }
  // random splits, down to single bytes
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; ) {
    const n = 1 + r.int(r.next() < 0.1 ? 4 : 512);
    chunks.push(bytes.subarray(i, i + n));
    i += n;
  }
  return chunks;
}

/** inputs per reader: 100,000 in the full run, 20,000 in the others (test/helpers/full.ts); SVC_FUZZ_N for more */
const N = Number(process.env.SVC_FUZZ_N ?? fullOr(100_000, 20_000));
const count = N.toLocaleString('en');
const classified = (err: unknown) =>
  err instanceof ProtocolError || err instanceof ApiError || err instanceof NetworkError;

describe('reader fuzz', () => {
  it(`the SSE reader takes ${count} generated bodies: events or a classified error, never a crash`, async () => {
    const r = rng(0x5e5e);
    let events = 0;
    let errors = 0;
    for (let i = 0; i < N; i++) {
      const chunks = sseInput(r);
      // most inputs through the parser alone (synchronous), every 8th through the whole checked reader
      if (i % 8 !== 0) {
        const p = new SseParser();
        const d = new TextDecoder();
        for (const c of chunks) events += p.push(d.decode(c, { stream: true })).length;
        events += p.push(d.decode()).length + p.end().length;
        continue;
      }
      const res = {
        headers: { 'content-type': 'text/event-stream' },
        body: (async function* () {
          yield* chunks;
        })(),
        requestId: 'req_fuzz',
      };
      const reader =
        i % 16 === 0
          ? readEventStream<{ choices?: { finish_reason?: string }[] }>(res, {
              completes: (c) => !!c?.choices?.some?.((ch) => !!ch?.finish_reason),
              marker: '[DONE]',
            })
          : readTypedEventStream<{ type?: unknown }>(res, { endTypes: ['message_stop', 'response.completed'] });
      try {
        for await (const ev of reader) {
          if (!ev || typeof ev !== 'object') throw new Error(`not an event: ${JSON.stringify(ev)}`);
          events++;
        }
      } catch (err) {
        if (!classified(err)) throw err;
        errors++;
      }
    }
    expect(events).toBeGreaterThan(N);
    expect(errors).toBeGreaterThan(N / 100);
  }, 180_000); // a few seconds alone; the bound only keeps a machine under full load from failing it

  const messages = `the WebSocket reader takes ${count} generated messages`;
  it(`${messages}: typed events or a classified error, never a crash`, async () => {
    const r = rng(0x3b5);
    const socket = Object.assign(new EventEmitter(), { readyState: 1, send() {}, close() {}, terminate() {} });
    const conn = new WsConnection(socket as never, (s) => s);
    const tts = new TtsSocket(conn);
    const stt = new SttSocket(conn);
    let typed = 0;
    let errors = 0;
    const HUGE_AUDIO = Buffer.from(`{"type":"audio.delta","delta":"${'A'.repeat(100_000)}"}`);
    const TTS_TYPES = new Set(['audio.delta', 'audio.done', 'audio.clear', 'other']);
    for (let i = 0; i < N; i++) {
      const roll = r.next();
      let binary = false;
      if (roll < 0.6) {
        const e = r.pick(EVENTS);
        socket.emit('message', Buffer.from(r.next() < 0.2 ? e.slice(0, r.int(e.length)) : e), false);
      } else if (roll < 0.8) {
        const bytes = Buffer.from(randomBytes(r, r.int(200)));
        binary = r.next() < 0.5;
        socket.emit('message', bytes, binary);
      } else if (roll < 0.803) socket.emit('message', HUGE_AUDIO, false);
      else socket.emit('message', [Buffer.from('{"type":"transcript'), Buffer.from('.partial","text":"x"}')], false);
      const which = i % 3;
      // an STT read skips a binary frame and waits for a JSON event: one is queued after it so it never waits
      // forever (and only then, so that every read takes the message just generated, not one left from before)
      if (which === 1 && binary) socket.emit('message', Buffer.from('{"type":"transcript.partial","text":""}'), false);
      try {
        if (which === 0) {
          const ev = await tts.next();
          if (!ev || !TTS_TYPES.has(ev.type)) throw new Error(`untyped TTS event ${JSON.stringify(ev)}`);
        } else if (which === 1) {
          const ev = await stt.next();
          if (ev === undefined || typeof ev !== 'object') throw new Error(`not an STT event: ${JSON.stringify(ev)}`);
        } else {
          const m = await conn.next();
          if (m?.type === 'json') {
            const ev = m.data as { type: string };
            if (ev.type === 'error' && !(errorFromEvent(ev as never) instanceof ApiError))
              throw new Error('error event not an ApiError');
            else void isAudioDelta(String(ev.type));
          }
        }
        typed++;
      } catch (err) {
        if (!classified(err)) throw err;
        errors++;
      }
    }
    expect(typed + errors).toBe(N);
    expect(errors).toBeGreaterThan(N / 100);
  }, 180_000);
});
