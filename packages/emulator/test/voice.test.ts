// The emulator's TTS and STT protocols, spoken to directly (fetch and ws) over loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestEmulator, type TestEmulator } from 'svc-emulator/testing';
import { decodeAudio, encodeWav, mulawEncode, parseWavHeader } from 'svc-formats/audio-codecs';
import { textToTones, tonesToText } from '../src/voice/tones.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const auth = () => ({ authorization: `Bearer ${emu.key}` });
const post = (body: unknown) =>
  fetch(`${emu.url}/v1/tts`, {
    method: 'POST',
    headers: { ...auth(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** A WebSocket with a queue of received messages. */
async function connect(
  path: string,
): Promise<{ ws: WebSocket; next: () => Promise<Record<string, any> | Buffer>; closed: Promise<number> }> {
  const ws = new WebSocket(`${emu.wsUrl}${path}`, { headers: auth() });
  const queue: (Record<string, any> | Buffer)[] = [];
  const waiters: ((m: Record<string, any> | Buffer) => void)[] = [];
  ws.on('message', (d, bin) => {
    const m = bin ? (d as Buffer) : JSON.parse(d.toString());
    const w = waiters.shift();
    if (w) w(m);
    else queue.push(m);
  });
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  return {
    ws,
    next: () => (queue.length ? Promise.resolve(queue.shift()!) : new Promise((r) => waiters.push(r))),
    closed,
  };
}

describe('emulator POST /v1/tts', () => {
  it('answers JSON with base64 audio, its content type, duration and timestamps', async () => {
    const res = await post({
      text: 'Hi',
      language: 'EN',
      voice_id: 'Eve',
      output_format: { codec: 'ulaw', sample_rate: 8000 },
      with_timestamps: true,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, any>;
    expect(body.content_type).toBe('audio/basic');
    expect(body.audio_timestamps.graph_chars).toEqual(['H', 'i']);
    const audio = Buffer.from(body.audio, 'base64');
    expect(body.duration).toBeCloseTo(audio.length / 8000, 2);
    const { pcm } = await decodeAudio(audio, { codec: 'mulaw', sampleRate: 8000 });
    expect(tonesToText(pcm, 8000)).toBe('Hi');
  });

  it('speaks in every codec and rate as real audio', async () => {
    for (const [codec, type] of [
      ['mp3', 'audio/mpeg'],
      ['wav', 'audio/wav'],
      ['pcm', 'audio/pcm'],
      ['alaw', 'audio/alaw'],
    ] as const) {
      const body = (await (
        await post({ text: 'ok', language: 'auto', output_format: { codec, sample_rate: 16000, bit_rate: 32000 } })
      ).json()) as Record<string, any>;
      expect(body.content_type).toBe(type);
      const { pcm, format } = await decodeAudio(Buffer.from(body.audio, 'base64'), { codec, sampleRate: 16000 });
      expect(tonesToText(pcm, format.sampleRate)).toBe('ok');
    }
    const wav = Buffer.from(
      (
        (await (
          await post({ text: 'w', language: 'auto', output_format: { codec: 'wav', sample_rate: 48000 } })
        ).json()) as any
      ).audio,
      'base64',
    );
    expect(parseWavHeader(wav)!.format.sampleRate).toBe(48000);
  });

  it('does not speak speech tags, pauses at [pause], normalizes numbers on request', async () => {
    const get = async (b: Record<string, unknown>) => {
      const r = (await (
        await post({ language: 'en', output_format: { codec: 'pcm', sample_rate: 16000 }, ...b })
      ).json()) as any;
      return { text: tonesToText(Buffer.from(r.audio, 'base64'), 16000), duration: r.duration as number };
    };
    const tagged = await get({ text: 'a [pause] <whisper>b</whisper> [laugh]' });
    const plain = await get({ text: 'a  b ' });
    expect(tagged.text).toBe('a  b ');
    expect(tagged.duration).toBeCloseTo(plain.duration + 0.4, 1);
    expect((await get({ text: 'room 42', text_normalization: true })).text).toBe('room forty-two');
  });

  it('checks its fields: 422 for a missing one, 400 for a range', async () => {
    const missing = await post({ text: 'x' });
    expect(missing.status).toBe(422);
    expect(await missing.text()).toMatch(/missing field `language`/);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ text: 'x'.repeat(60_001), language: 'en' }, /`text`: at most 60000 characters \(got 60001\)/],
      [{ text: 'x', language: 'en_US' }, /`language`: "en_US"; must be a BCP-47 code or auto \(supported: auto, en/],
      [{ text: 'x', language: 'en', speed: 1.6 }, /`speed`: 1\.6; must be at least 0\.7 and at most 1\.5/],
      [{ text: 'x', language: 'en', output_format: { codec: 'flac' } }, /`output_format.codec`: "flac"/],
      [{ text: 'x', language: 'en', output_format: { sample_rate: 11025 } }, /`output_format.sample_rate`: 11025/],
      [{ text: 'x', language: 'en', voice_id: 'nobody' }, /`voice_id`: "nobody"/],
    ];
    for (const [body, msg] of cases) {
      const r = await post(body);
      expect(r.status).toBe(400);
      expect(((await r.json()) as any).error).toMatch(msg);
    }
  });
});

describe('emulator WS /v1/tts', () => {
  it(
    'streams audio per text.delta, ends with audio.done, and takes another utterance on the same ' + 'connection',
    async () => {
      const c = await connect('/v1/tts?language=en&codec=pcm&sample_rate=16000&with_timestamps=true');
      for (const text of ['one', 'two']) {
        c.ws.send(JSON.stringify({ type: 'text.delta', delta: text.slice(0, 1) }));
        c.ws.send(JSON.stringify({ type: 'text.delta', delta: text.slice(1) }));
        c.ws.send(JSON.stringify({ type: 'text.done' }));
        const audio: Buffer[] = [];
        const chars: string[] = [];
        for (;;) {
          const m = (await c.next()) as Record<string, any>;
          if (m.type === 'audio.done') {
            expect(m.trace_id).toMatch(/^[0-9a-f-]{36}$/);
            break;
          }
          expect(m.type).toBe('audio.delta');
          audio.push(Buffer.from(m.delta, 'base64'));
          chars.push(...(m.audio_timestamps?.graph_chars ?? []));
        }
        expect(audio.length).toBeGreaterThanOrEqual(3);
        expect(tonesToText(Buffer.concat(audio), 16000)).toBe(text);
        expect(chars.join('')).toBe(text);
      }
      c.ws.close();
    },
  );

  it('text.clear answers audio.clear; a bad message is an error that keeps the connection', async () => {
    const c = await connect('/v1/tts?language=auto&codec=mulaw&sample_rate=8000');
    c.ws.send(JSON.stringify({ type: 'text.delta', delta: 'abc' }));
    expect(((await c.next()) as any).type).toBe('audio.delta');
    c.ws.send(JSON.stringify({ type: 'text.clear' }));
    expect(await c.next()).toEqual({ type: 'audio.clear' });
    c.ws.send('not json');
    expect(await c.next()).toEqual({ type: 'error', message: 'message is not JSON' });
    c.ws.send(JSON.stringify({ type: 'text.delta', delta: 'z' }));
    expect(((await c.next()) as any).type).toBe('audio.delta');
    c.ws.close();
  });

  it('a bad query parameter is an error event and a close', async () => {
    const c = await connect('/v1/tts?language=en&speed=2');
    expect(((await c.next()) as any).message).toMatch(/`speed`: "2"; must be at least 0\.7/);
    expect(await c.closed).toBe(1008);
    const n = await connect('/v1/tts?codec=mp3');
    expect(((await n.next()) as any).message).toMatch(/Missing query parameter `language`/);
  });
});

describe('emulator /v1/stt', () => {
  const form = (fields: Record<string, string>, file?: Buffer<ArrayBuffer>, fileFirst = false) => {
    const fd = new FormData();
    if (file && fileFirst) fd.append('file', new Blob([file]), 'a.wav');
    for (const [k, v] of Object.entries(fields)) fd.append(k, v);
    if (file && !fileFirst) fd.append('file', new Blob([file]), 'a.wav');
    return fetch(`${emu.url}/v1/stt`, { method: 'POST', headers: auth(), body: fd });
  };
  const wav = encodeWav(textToTones('two words', 16000), { sampleRate: 16000, channels: 1 });

  it('transcribes a multipart upload, and checks the form rules', async () => {
    const ok = (await (await form({ language: 'en' }, wav)).json()) as any;
    expect(ok).toMatchObject({ text: 'two words', language: '', words: [{ text: 'two' }, { text: 'words' }] });
    const rules: [Record<string, string>, Buffer<ArrayBuffer> | undefined, boolean, RegExp][] = [
      [{ language: 'en' }, wav, true, /`file` must be the last field/],
      [{}, undefined, false, /Either `file` or `url` is required/],
      [{ format: 'true' }, wav, false, /`format=true` requires `language`/],
      [{ audio_format: 'pcm' }, wav, false, /`sample_rate` is required for raw audio/],
      [
        { channels: '9', multichannel: 'true' },
        wav,
        false,
        /`channels`: 9; must be an integer at least 2 and at most 8/,
      ],
      [{ audio_format: 'ogg' }, Buffer.from('OggS-not-really'), false, /ogg is not supported here/],
    ];
    for (const [fields, file, first, msg] of rules) {
      const r = await form(fields, file, first);
      expect(r.status).toBe(400);
      expect(((await r.json()) as any).error).toMatch(msg);
    }
  });

  it('streaming: refuses audio before transcript.created', async () => {
    emu.core.settings.sttReadyDelayMs = 200;
    try {
      const c = await connect('/v1/stt');
      c.ws.send(Buffer.alloc(3200));
      expect(((await c.next()) as any).message).toMatch(/before transcript.created/);
      expect(await c.closed).toBe(1008);
    } finally {
      emu.core.settings.sttReadyDelayMs = 30;
    }
  });

  it('streaming: finalize forces speech_final; audio.done gives transcript.done and closes', async () => {
    const c = await connect('/v1/stt?encoding=mulaw&sample_rate=8000');
    expect(((await c.next()) as any).type).toBe('transcript.created');
    const audio = mulawEncode(textToTones('hi', 8000, { tailMs: 0 }));
    for (let i = 0; i < audio.length; i += 800) c.ws.send(audio.subarray(i, i + 800));
    c.ws.send(JSON.stringify({ type: 'finalize' }));
    expect(await c.next()).toMatchObject({
      type: 'transcript.partial',
      text: 'hi',
      is_final: true,
      speech_final: true,
      start: 0,
    });
    c.ws.send(JSON.stringify({ type: 'audio.done' }));
    expect(await c.next()).toMatchObject({ type: 'transcript.done', text: '', duration: expect.any(Number) });
    expect(await c.closed).toBe(1000);
  });

  it(
    'streaming: smart turn demotes an unfinished sentence to chunk final, then the timeout ends the ' + 'turn',
    async () => {
      const c = await connect('/v1/stt?smart_turn=0.5&smart_turn_timeout=300');
      expect(((await c.next()) as any).type).toBe('transcript.created');
      c.ws.send(Buffer.concat([textToTones('so', 16000, { tailMs: 0 }), Buffer.alloc(16000)]));
      const chunk = (await c.next()) as any;
      expect(chunk).toMatchObject({
        type: 'transcript.partial',
        text: 'so',
        is_final: true,
        speech_final: false,
        end_of_turn_confidence: 0.3,
      });
      expect(await c.next()).toMatchObject({ type: 'transcript.partial', is_final: true, speech_final: true });
      c.ws.send(Buffer.concat([textToTones('done.', 16000, { tailMs: 0 }), Buffer.alloc(3200)]));
      expect(await c.next()).toMatchObject({ text: 'done.', speech_final: true, end_of_turn_confidence: 0.92 });
      c.ws.close();
    },
  );

  it('streaming: bad parameters are an error and a close', async () => {
    for (const [query, msg] of [
      ['endpointing=5001', /`endpointing`: "5001"; must be an integer from 0 to 5000/],
      ['smart_turn_timeout=100', /only allowed with `smart_turn`/],
      ['multichannel=true', /requires `channels` from 2 to 8/],
      ['encoding=opus', /does not decode opus/],
      [`${Array.from({ length: 101 }, (_, i) => `keyterm=k${i}`).join('&')}`, /Too many `keyterm` values: 101/],
      // the document's const and enum, answered by request-check before the route
      ['model=other', /^Invalid value for `model`: "other"; must be one of voice-transcribe-2.0$/],
      ['encoding=flac', /^Invalid value for `encoding`: "flac"; must be one of pcm, mulaw, alaw, opus$/],
    ] as const) {
      const c = await connect(`/v1/stt?${query}`);
      expect(((await c.next()) as any).message).toMatch(msg);
      expect(await c.closed).toBe(1008);
    }
  });
});
