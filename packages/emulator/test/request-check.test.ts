// Requests checked against the API document (src/request-check.ts) before the routes' own rules: values out of the
// document's range or enum refused with the service's status and wording, fields the document does not describe
// noted (x-emulator-warning header, request log) or, with `strict`, refused naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { realtimeLogs } from 'svc-emulator/realtime-log';
import { startTestEmulator, type TestEmulator } from 'svc-emulator/testing';

let emu: TestEmulator;
let strict: TestEmulator;

beforeAll(async () => {
  [emu, strict] = await Promise.all([startTestEmulator(), startTestEmulator({ strict: true })]);
});
afterAll(() => Promise.all([emu.close(), strict.close()]));

async function post(on: TestEmulator, path: string, body: unknown) {
  const res = await fetch(`${on.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${on.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, warning: res.headers.get('x-emulator-warning'), text };
}

const errorOf = (text: string) => (JSON.parse(text) as { code: string; error: string }).error;

describe('requests checked against the API document', () => {
  it('refuses a value outside the enum the document gives, a rule no route checks by hand', async () => {
    // `truncation` has no hand-written check: before the document's rules, "sometimes" was taken (200)
    const r = await post(emu, '/v1/responses', { model: 'svc-4', input: 'hi', truncation: 'sometimes' });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toEqual({
      code: 'invalid-argument',
      error: 'Invalid value for `truncation`: "sometimes"; must be one of auto, disabled',
    });
  });

  it('answers ranges, nested enums and lengths with the field, the value and what is allowed', async () => {
    const cases: [string, unknown, string][] = [
      [
        '/v1/chat/completions',
        { model: 'svc-4', messages: [{ role: 'user', content: 'x' }], top_p: 0 },
        'Invalid value for `top_p`: 0; must be greater than 0 and at most 1',
      ],
      [
        '/v1/images/generations',
        { prompt: 'a cat', n: 11 },
        'Invalid value for `n`: 11; must be an integer at least 1 and at most 10',
      ],
      [
        '/v1/documents/search',
        { query: 'q', source: { collection_ids: ['c'] }, retrieval_mode: { type: 'fuzzy' } },
        'Invalid value for `retrieval_mode.type`: "fuzzy"; must be one of hybrid, semantic, keyword',
      ],
      ['/v1/tts', { text: 'x'.repeat(60_001), language: 'en' }, 'Invalid value for `text`: at most 60000 characters'],
      ['/v1/tokenize-text', { text: 5, model: 'svc-4' }, 'Invalid value for `text`: expected a string'],
    ];
    for (const [path, body, message] of cases) {
      const r = await post(emu, path, body);
      expect(r.status, path).toBe(400);
      expect(errorOf(r.text), path).toContain(message);
    }
  });

  it('answers the ranges and enums the routes once checked by hand, naming a nested field by its path', async () => {
    const chat = { model: 'svc-4', messages: [{ role: 'user', content: 'x' }] };
    const cases: [string, unknown, string][] = [
      [
        '/v1/chat/completions',
        { ...chat, n: 129 },
        'Invalid value for `n`: 129; must be an integer at least 1 and at most 128',
      ],
      [
        '/v1/completions',
        { model: 'svc-3-mini', prompt: 'x', seed: 2 ** 31 },
        'Invalid value for `seed`: 2147483648; must be an integer at least -2147483648 and at most 2147483647',
      ],
      [
        '/v1/responses',
        { model: 'svc-4', input: 'hi', reasoning: { effort: 'max' } },
        'Invalid value for `reasoning.effort`: "max"; must be one of none, low, medium, high, xhigh',
      ],
      [
        '/v1/responses',
        { model: 'svc-4', input: 'hi', reasoning: { generate_summary: 'long' } },
        'Invalid value for `reasoning.generate_summary`: "long"; must be one of auto, concise, detailed',
      ],
      [
        '/v1/responses',
        { model: 'svc-4', input: 'hi', include: ['reasoning.encrypted_content', 'everything'] },
        'Invalid value for `include[1]`: "everything"; must be one of reasoning.encrypted_content, ' +
          'web_search_call.action.sources, web_search_call.results, code_interpreter_call.outputs, ' +
          'file_search_call.results, message.input_image.image_url, computer_call_output.output.image_url, ' +
          'message.output_text.logprobs',
      ],
      [
        '/v1/messages',
        { model: 'svc-4', max_tokens: 10, messages: [] },
        'Invalid value for `messages`: at least 1 item (got 0)',
      ],
      [
        '/v1/messages',
        {
          model: 'svc-4',
          max_tokens: 10,
          messages: [{ role: 'user', content: 'x' }],
          stop_sequences: 'abcde'.split(''),
        },
        'Invalid value for `stop_sequences`: at most 4 items (got 5)',
      ],
      ['/v1/chat/completions', { ...chat, messages: [] }, 'Invalid value for `messages`: at least 1 item (got 0)'],
      [
        '/v1/completions',
        { model: 'svc-3', prompt: 'x', stream: 'yes' },
        'Invalid value for `stream`: expected a boolean',
      ],
      [
        '/v1/agents',
        { name: 'a', collection_ids: Array.from({ length: 11 }, (_, i) => `c${i}`) },
        'Invalid value for `collection_ids`: at most 10 items (got 11)',
      ],
      [
        '/v1/agents',
        { name: 'a', voice: { vad_silence_duration_ms: 10_001 } },
        'Invalid value for `voice.vad_silence_duration_ms`: 10001; must be an integer at least 0 and at most 10000',
      ],
      [
        '/v1/documents/search',
        { query: 'q', source: { collection_ids: ['c'] }, limit: 101 },
        'Invalid value for `limit`: 101; must be an integer at least 1 and at most 100',
      ],
    ];
    for (const [path, body, message] of cases) {
      const r = await post(emu, path, body);
      expect([path, r.status, errorOf(r.text)]).toEqual([path, 400, message]);
    }
  });

  it('answers a missing field below the top level with 400 naming its path', async () => {
    const cases: [string, unknown, string][] = [
      [
        '/v1/chat/completions',
        { model: 'svc-4', messages: [{ content: 'x' }] },
        'Invalid value for `messages[0].role`: required',
      ],
      ['/v1/documents/search', { query: 'q', source: {} }, 'Invalid value for `source.collection_ids`: required'],
      ['/v1/agents', { name: 'a', tools: [{}] }, 'Invalid value for `tools[0].type`: required'],
      [
        '/v2/phone-numbers',
        { origin: 'svc_provisioned', name: 'n', sip_auth: {} },
        'Invalid value for `sip_auth.allowed_addresses`: required',
      ],
    ];
    for (const [path, body, message] of cases) {
      const r = await post(emu, path, body);
      expect([path, r.status, errorOf(r.text)]).toEqual([path, 400, message]);
    }
  });

  it('keeps the 422 text of a missing required field', async () => {
    const r = await post(emu, '/v1/embeddings', { input: 'x' });
    expect(r.status).toBe(422);
    expect(r.text).toBe(
      'Failed to deserialize the JSON body into the target type: missing field `model` at line 1 column 13',
    );
  });

  it('notes a field the document does not describe in x-emulator-warning and the request log', async () => {
    emu.clearRequests();
    const r = await post(emu, '/v1/messages', {
      model: 'svc-4',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'hi' }],
      output_config: { effort: 'low' },
    });
    expect(r.status).toBe(200);
    expect(r.warning).toBe('unknown field ignored: output_config');
    const logged = emu.requests().find((q) => q.path === '/v1/messages');
    expect(logged?.warnings).toEqual(['unknown field ignored: output_config']);
  });

  it("takes messages' tool_choice as the document describes it (MessagesToolChoice), --strict too", async () => {
    const body = (tool_choice: unknown) => ({
      model: 'svc-4',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
      tool_choice,
    });
    for (const choice of [{ type: 'any' }, { type: 'none' }, { type: 'tool', name: 'lookup' }]) {
      const [lenient, strictly] = [
        await post(emu, '/v1/messages', body(choice)),
        await post(strict, '/v1/messages', body(choice)),
      ];
      expect([lenient.status, lenient.warning, strictly.status], JSON.stringify(choice)).toEqual([200, null, 200]);
    }
    const bad = await post(emu, '/v1/messages', body({ type: 'sometimes' }));
    expect([bad.status, errorOf(bad.text)]).toEqual([
      400,
      'Invalid value for `tool_choice.type`: must be one of auto, any, none, tool',
    ]);
  });

  it('notes an unknown query parameter, and refuses a documented one out of range', async () => {
    const list = (on: TestEmulator, query: string) =>
      fetch(`${on.url}/v1/files?${query}`, { headers: { authorization: `Bearer ${on.key}` } });
    const unknown = await list(emu, 'limt=5');
    expect(unknown.status).toBe(200);
    expect(unknown.headers.get('x-emulator-warning')).toBe('unknown query parameter ignored: limt');
    const bad = await list(emu, 'limit=0');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe(
      'Invalid value for `limit`: "0"; must be an integer from 1 to 100',
    );
    const refused = await list(strict, 'limt=5');
    expect(refused.status).toBe(400);
  });

  it('notes a multipart part the document does not describe; with strict, refuses it naming it', async () => {
    const upload = (on: TestEmulator) => {
      const form = new FormData();
      form.append('chunking_strategy', 'auto');
      form.append('file', new Blob(['hello']), 'a.txt');
      return fetch(`${on.url}/v1/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${on.key}` },
        body: form,
      });
    };
    const noted = await upload(emu);
    expect(noted.status).toBe(200);
    expect(noted.headers.get('x-emulator-warning')).toBe('unknown field ignored: chunking_strategy');
    const refused = await upload(strict);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toContain('Unknown field `chunking_strategy`');
  });

  it('with strict, answers 400 naming the unknown field (nested ones by their path)', async () => {
    const r = await post(strict, '/v1/chat/completions', {
      model: 'svc-4',
      messages: [{ role: 'user', content: 'x' }],
      temprature: 0.5,
    });
    expect(r.status).toBe(400);
    expect(errorOf(r.text)).toBe(
      'Unknown field `temprature`: the API document does not describe it (the emulator runs with --strict)',
    );
    const nested = await post(strict, '/v1/documents/search', {
      query: 'q',
      source: { collection_ids: ['c'], colection: 'x' },
    });
    expect(nested.status).toBe(400);
    expect(errorOf(nested.text)).toContain('Unknown field `source.colection`');
  });

  it('names nothing for fields the document describes', async () => {
    const r = await post(strict, '/v1/chat/completions', {
      model: 'svc-4',
      messages: [{ role: 'user', content: 'x' }],
      temperature: 0.5,
      max_tokens: 3,
    });
    expect(r.status).toBe(200);
    expect(r.warning).toBeNull();
  });
});

/** A realtime session: send one client event, return the server's answer to it (session.updated or error). */
async function realtimeReply(
  on: TestEmulator,
  event: Record<string, unknown>,
  answers = ['session.updated', 'error'],
): Promise<Record<string, any>> {
  const ws = new WebSocket(`${on.wsUrl}/v1/realtime`, { headers: { authorization: `Bearer ${on.key}` } });
  const events: Record<string, any>[] = [];
  const second = new Promise<Record<string, any>>((resolve, reject) => {
    ws.on('message', (d) => {
      events.push(JSON.parse(d.toString()));
      if (events.length === 1) ws.send(JSON.stringify(event));
      else if (answers.includes(events.at(-1)!.type)) resolve(events.at(-1)!);
    });
    ws.once('error', reject);
    ws.once('close', () => reject(new Error(`closed after ${events.map((e) => e.type).join(', ')}`)));
  });
  try {
    return await second;
  } finally {
    ws.terminate();
  }
}

describe('top_p and top_k of /v1/complete and /v1/messages: the document and the emulator agree', () => {
  it('refuses top_p 0 and top_k 0 by the ranges of the document (greater than 0; at least 1)', async () => {
    const doc = (await (await fetch(`${emu.url}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
    };
    const bodies: [string, string, Record<string, unknown>][] = [
      ['/v1/complete', 'CompleteRequest', { prompt: '\n\nHuman: hi\n\nAssistant:', max_tokens_to_sample: 5 }],
      ['/v1/messages', 'MessagesRequest', { max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }],
    ];
    for (const [path, schema, body] of bodies) {
      const { top_p, top_k } = doc.components.schemas[schema]!.properties;
      expect([top_p, top_k], schema).toEqual([
        { type: 'number', exclusiveMinimum: 0, maximum: 1 },
        { type: 'integer', minimum: 1, maximum: 2147483647 },
      ]);
      const p = await post(emu, path, { model: 'svc-4', ...body, top_p: 0 });
      expect([p.status, errorOf(p.text)]).toEqual([
        400,
        'Invalid value for `top_p`: 0; must be greater than 0 and at most 1',
      ]);
      const k = await post(emu, path, { model: 'svc-4', ...body, top_k: 0 });
      expect([k.status, errorOf(k.text)]).toEqual([
        400,
        'Invalid value for `top_k`: 0; must be an integer at least 1 and at most 2147483647',
      ]);
      const ok = await post(emu, path, { model: 'svc-4', ...body, top_p: 0.5, top_k: 1 });
      expect(ok.status).toBe(200);
    }
  });

  it('a response with no model gets the default the document gives (the spec requires input only)', async () => {
    const doc = (await (await fetch(`${emu.url}/openapi.json`)).json()) as {
      components: { schemas: { ResponsesRequest: { required: string[]; properties: { model: { default: string } } } } };
    };
    const request = doc.components.schemas.ResponsesRequest;
    expect(request.required).toEqual(['input']);
    const catalogue = await fetch(`${emu.url}/v1/models`, { headers: { authorization: `Bearer ${emu.key}` } });
    const models = (await catalogue.json()) as { data: { id: string }[] };
    const r = await post(emu, '/v1/responses', { input: 'hi' });
    expect(r.status).toBe(200);
    const model = (JSON.parse(r.text) as { model: string }).model;
    const ids = models.data.map((m) => m.id);
    expect(ids).toContain(model);
    const named = await post(emu, '/v1/responses', { input: 'hi', model: request.properties.model.default });
    expect((JSON.parse(named.text) as { model: string }).model).toBe(model);
    const none = await post(emu, '/v1/responses', { model: 'svc-4' });
    expect([none.status, none.text]).toEqual([422, expect.stringContaining('input')]);
  });
});

describe('WebSocket client events checked against the API document', () => {
  // the GA shape's place for turn detection; this API's session has it at session.turn_detection
  const gaStyle = { type: 'session.update', session: { audio: { input: { turn_detection: null } } } };

  it('notes a field the document does not describe in the session log, and applies the rest', async () => {
    const reply = await realtimeReply(emu, gaStyle);
    expect(reply.type).toBe('session.updated');
    expect(realtimeLogs(emu.core).at(-1)!.warnings).toEqual([
      'session.update: unknown field ignored: session.audio.input.turn_detection',
    ]);
  });

  it('with strict, answers the error event naming the field', async () => {
    const reply = await realtimeReply(strict, gaStyle);
    expect(reply).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', code: 'unknown_parameter', param: 'session.audio.input.turn_detection' },
    });
  });

  it('takes turn_detection type null as no VAD ("server_vad" | null in wire-details), refuses "none"', async () => {
    const off = await realtimeReply(strict, { type: 'session.update', session: { turn_detection: { type: null } } });
    expect(off).toMatchObject({ type: 'session.updated', session: { turn_detection: null } });
    const none = await realtimeReply(emu, { type: 'session.update', session: { turn_detection: { type: 'none' } } });
    expect(none.error).toMatchObject({
      code: 'invalid_value',
      param: 'session.turn_detection.type',
      message: 'Invalid value for `session.turn_detection.type`: "none"; must be one of server_vad or null',
    });
  });

  it('with strict, takes the event_id and previous_item_id the document describes', async () => {
    const item = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] };
    const added = await realtimeReply(
      strict,
      { type: 'conversation.item.create', event_id: 'ev_1', previous_item_id: 'item_0', item },
      ['conversation.item.added', 'error'],
    );
    expect(added).toMatchObject({ type: 'conversation.item.added', previous_item_id: 'item_0' });
    // an error about the event names its event_id
    const refused = await realtimeReply(strict, { type: 'response.cancel', event_id: 'ev_2' });
    expect(refused.error).toMatchObject({ code: 'response_cancel_not_active', event_id: 'ev_2' });
  });

  it('answers an unknown event type with the error of the API naming it, also with strict', async () => {
    const reply = await realtimeReply(strict, { type: 'session.upgrade' });
    expect(reply.error).toMatchObject({
      code: 'invalid_event_type',
      message: 'Unknown client event type: session.upgrade',
    });
  });
});

/** A socket of its own (TTS, STT): send one client event once the socket is open, return the first event of `type`. */
async function streamReply(on: TestEmulator, path: string, event: Record<string, unknown>, type = 'error') {
  const ws = new WebSocket(`${on.wsUrl}${path}`, { headers: { authorization: `Bearer ${on.key}` } });
  try {
    return await new Promise<Record<string, any>>((resolve, reject) => {
      ws.once('open', () => ws.send(JSON.stringify(event)));
      ws.on('message', (d, binary) => {
        const ev = binary ? {} : JSON.parse(d.toString());
        if (ev.type === type) resolve(ev);
      });
      ws.once('error', reject);
      ws.once('close', () => reject(new Error(`closed before a ${type} event`)));
    });
  } finally {
    ws.terminate();
  }
}

describe("WebSocket client events: the conditions on an event's type (if/then) answered from the document", () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    [
      'session.update without its session',
      { type: 'session.update' },
      'session',
      'Invalid value for `session`: required',
    ],
    [
      'a truncate before the start of the audio',
      { type: 'conversation.item.truncate', item_id: 'item_1', content_index: -1, audio_end_ms: 0 },
      'content_index',
      'Invalid value for `content_index`: -1; must be an integer at least 0',
    ],
    [
      'more tools than a session takes',
      { type: 'session.update', session: { tools: Array.from({ length: 201 }, () => ({ type: 'web_search' })) } },
      'session.tools',
      'Invalid value for `session.tools`: at most 200 items (got 201)',
    ],
    [
      'a function call output without its call_id (an if/then inside the item)',
      { type: 'conversation.item.create', item: { type: 'function_call_output', output: '{}' } },
      'item.call_id',
      'Invalid value for `item.call_id`: required',
    ],
    [
      'an item of a kind a client does not add',
      { type: 'conversation.item.create', item: { type: 'function_call', name: 'f', arguments: '{}' } },
      'item.type',
      'Invalid value for `item.type`: "function_call"; must be one of message, function_call_output',
    ],
    [
      'a turn detection that is neither an object nor null',
      { type: 'session.update', session: { turn_detection: 'server_vad' } },
      'session.turn_detection',
      'Invalid value for `session.turn_detection`: expected an object',
    ],
  ];
  for (const [name, event, param, message] of cases)
    it(`realtime: ${name} is an invalid_value error naming ${param}`, async () => {
      const reply = await realtimeReply(emu, { ...event, event_id: 'ev_9' });
      expect(reply.error).toEqual({
        type: 'invalid_request_error',
        code: 'invalid_value',
        param,
        message,
        event_id: 'ev_9',
      });
    });

  it("TTS and STT streams: a field's type refused, and with strict a field the document doesn't describe", async () => {
    const tts = '/v1/tts?language=en&codec=pcm&sample_rate=8000';
    expect(await streamReply(emu, tts, { type: 'text.delta', delta: 5 })).toEqual({
      type: 'error',
      message: 'Invalid value for `delta`: expected a string',
    });
    expect((await streamReply(strict, tts, { type: 'text.done', flush: true })).message).toMatch(
      /^Unknown field `flush`: the API document does not describe it/,
    );
    const stt = '/v1/stt?sample_rate=16000&encoding=pcm';
    expect((await streamReply(strict, stt, { type: 'finalize', now: true })).message).toMatch(/^Unknown field `now`/);
    // without strict: applied, and noted in the request log's entry of the socket
    expect(await streamReply(emu, tts, { type: 'text.clear', flush: true }, 'audio.clear')).toBeDefined();
    const entry = emu
      .requests()
      .filter((q) => q.method === 'WS' && q.path === '/v1/tts')
      .at(-1);
    expect(entry?.warnings).toEqual(['unknown field ignored: flush']);
  });
});

describe("multipart forms' values checked against the operation's form schema", () => {
  /** POST a multipart form of text fields (and a file part, when given) with `on`'s key. */
  async function postForm(path: string, fields: [string, string][], file?: [string, Blob, string]) {
    const fd = new FormData();
    for (const [name, value] of fields) fd.append(name, value);
    if (file) fd.append(...file);
    const res = await fetch(`${emu.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.key}` },
      body: fd,
    });
    return [res.status, errorOf(await res.text())];
  }
  const wav = new Blob([new Uint8Array(64)], { type: 'audio/wav' });

  it('refuses an enum value, a number out of range or not a number, and a missing part, naming the field', async () => {
    expect(await postForm('/v1/stt', [['audio_format', 'WAV']], ['file', wav, 'a.wav'])).toEqual([
      400,
      'Invalid value for `audio_format`: "WAV"; must be one of pcm, mulaw, alaw, wav, mp3, ogg, opus, flac, aac, ' +
        'mp4, m4a, mkv',
    ]);
    expect(await postForm('/v1/stt', [['diarize', '1']], ['file', wav, 'a.wav'])).toEqual([
      400,
      'Invalid value for `diarize`: "1"; must be one of true, false',
    ]);
    expect(await postForm('/v1/files', [['expires_after', 'a day']], ['file', wav, 'a.txt'])).toEqual([
      400,
      'Invalid value for `expires_after`: "a day"; must be an integer at least 3600 and at most 2592000',
    ]);
    expect(await postForm('/v1/skills', [['name', 'x']])).toEqual([400, 'Missing the `files` part']);
  });
});

describe('WebSocket query parameters checked against the API document', () => {
  /** The first event of a streaming STT opening and its close code. */
  async function sttOpening(on: TestEmulator, query: string): Promise<{ event: Record<string, any>; code: number }> {
    const ws = new WebSocket(`${on.wsUrl}/v1/stt?${query}`, { headers: { authorization: `Bearer ${on.key}` } });
    return new Promise((resolve, reject) => {
      let event: Record<string, any> = {};
      ws.once('message', (d) => {
        event = JSON.parse(d.toString());
      });
      ws.once('close', (code) => resolve({ event, code }));
      ws.once('error', reject);
    });
  }

  it('refuses a number out of the documented range with an error event and 1008', async () => {
    const r = await sttOpening(emu, 'vad_threshold=2');
    expect(r).toEqual({
      event: { type: 'error', message: 'Invalid value for `vad_threshold`: "2"; must be at least 0 and at most 1' },
      code: 1008,
    });
  });

  it('with strict, refuses an unknown query parameter naming it', async () => {
    const r = await sttOpening(strict, 'endpointng=300');
    expect(r.code).toBe(1008);
    expect(r.event.message).toContain('Unknown query parameter `endpointng`');
  });
});

// issue 39: what current SDKs send that the API document does not describe is named, never silently ignored
describe('undocumented shapes current SDKs send', () => {
  const headers = (on: TestEmulator) => ({ authorization: `Bearer ${on.key}` });

  it('output_config on messages: the warning by default, 400 naming it with strict', async () => {
    const body = {
      model: 'svc-4',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'hi' }],
      output_config: { effort: 'low' },
    };
    expect((await post(emu, '/v1/messages', body)).warning).toBe('unknown field ignored: output_config');
    const refused = await post(strict, '/v1/messages', body);
    expect([refused.status, errorOf(refused.text)]).toEqual([
      400,
      'Unknown field `output_config`: the API document does not describe it (the emulator runs with --strict)',
    ]);
  });

  it('multipart images.edit: 415 naming the content type and the JSON body the document describes', async () => {
    const form = new FormData();
    form.append('image', new Blob([Buffer.from('not a png')]), 'in.png');
    form.append('prompt', 'make it red');
    const r = await fetch(`${emu.url}/v1/images/edits`, { method: 'POST', headers: headers(emu), body: form });
    expect(r.status).toBe(415);
    expect(((await r.json()) as { error: string }).error).toBe(
      'Expected request with `Content-Type: application/json` (got multipart/form-data: the API document describes ' +
        'a JSON body for POST /v1/images/edits)',
    );
  });

  it('POST /v1/realtime/calls/{id}/accept: 404 naming the path', async () => {
    const r = await post(emu, '/v1/realtime/calls/call_1/accept', {});
    expect([r.status, errorOf(r.text)]).toEqual([404, 'No such endpoint: POST /v1/realtime/calls/call_1/accept']);
  });
});
