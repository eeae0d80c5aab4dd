// The emulator's realtime protocol, spoken to over a real WebSocket: session events, server VAD over tone
// speech, the answer as tone audio, tools, barge-in, SIP call sessions and the refusals.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { decodeTones, encodeTones } from '../src/voice/tones.js';
import { mulawDecode, mulawEncode } from 'svc-formats/audio-codecs';
import { startInboundCall } from '../src/voice/calls.js';
import { realtimeLogs } from 'svc-emulator/realtime-log';
import { startTestEmulator, type TestEmulator } from 'svc-emulator/testing';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());
beforeEach(() => {
  Object.assign(emu.core.settings, {
    realtimePace: 0,
    realtimeResponseDelayMs: 0,
    realtimeCallerPauseMs: 0,
    realtimeLegacyEvents: 0,
  });
});

type Ev = Record<string, any> & { type: string };

class Client {
  events: Ev[] = [];
  closed?: { code: number; reason: string };
  private waiters: (() => void)[] = [];
  constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => {
      this.events.push(JSON.parse(d.toString()));
      this.waiters.splice(0).forEach((w) => w());
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.waiters.splice(0).forEach((w) => w());
    });
  }
  static async open(
    query = '',
    headers: Record<string, string> = { authorization: `Bearer ${emu.key}` },
    protocols: string[] = [],
  ): Promise<Client> {
    const ws = new WebSocket(`${emu.wsUrl}/v1/realtime${query}`, protocols, { headers });
    const c = new Client(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return c;
  }
  send(ev: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(ev));
  }
  /** wait for the n-th event of a type (1-based), or the close */
  async waitFor(type: string, n = 1): Promise<Ev> {
    for (;;) {
      const found = this.events.filter((e) => e.type === type);
      if (found.length >= n) return found[n - 1]!;
      if (this.closed)
        throw new Error(
          `closed (${this.closed.code} ${this.closed.reason}) before ${type}; got ` +
            `${this.events.map((e) => e.type).join(', ')}`,
        );
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }
  async waitClose(): Promise<{ code: number; reason: string }> {
    while (!this.closed) await new Promise<void>((r) => this.waiters.push(r));
    return this.closed;
  }
  /** send pcm16 at 24 kHz in 100 ms appends */
  appendPcm(pcm: Buffer, encode: (b: Buffer) => Buffer = (b) => b, chunk = 4800): void {
    for (let i = 0; i < pcm.length; i += chunk)
      this.send({ type: 'input_audio_buffer.append', audio: encode(pcm.subarray(i, i + chunk)).toString('base64') });
  }
  types(): string[] {
    return this.events.map((e) => e.type);
  }
  close(): void {
    this.ws.close();
  }
}

const silence = (ms: number, rate = 24000) => Buffer.alloc(Math.round((rate * ms) / 1000) * 2);

describe('realtime WebSocket (emulator)', () => {
  it('opens with session.created and applies session.update', async () => {
    const c = await Client.open('?model=voice-3.0');
    const created = await c.waitFor('session.created');
    expect(created.session).toMatchObject({
      model: 'voice-3.0',
      voice: 'eve',
      turn_detection: { type: 'server_vad' },
      audio: { input: { format: { type: 'audio/pcm', rate: 24000 } } },
    });
    expect(created.event_id).toMatch(/^event_/);
    c.send({
      type: 'session.update',
      session: {
        instructions: 'Be brief',
        voice: 'ara',
        turn_detection: { type: 'server_vad', silence_duration_ms: 300 },
        audio: { output: { format: { type: 'audio/pcmu' } } },
      },
    });
    const updated = await c.waitFor('session.updated');
    expect(updated.session).toMatchObject({
      instructions: 'Be brief',
      voice: 'ara',
      turn_detection: { silence_duration_ms: 300, threshold: 0.5 },
      audio: { output: { format: { type: 'audio/pcmu' } } },
    });
    c.send({ type: 'session.update', session: { turn_detection: { type: 'server_vad', threshold: 2 } } });
    const err = await c.waitFor('error');
    expect(err.error).toMatchObject({ type: 'invalid_request_error', param: 'session.turn_detection.threshold' });
    expect(err.error.message).toContain('at least 0 and at most 1');
    c.send({ type: 'no.such.event' });
    expect((await c.waitFor('error', 2)).error.code).toBe('invalid_event_type');
    c.close();
  });

  it('hears tone speech with server VAD and answers with tone audio and a transcript', async () => {
    const c = await Client.open();
    await c.waitFor('session.created');
    c.appendPcm(Buffer.concat([silence(200), encodeTones('what time is it', 24000), silence(800)]));
    const started = await c.waitFor('input_audio_buffer.speech_started');
    const stopped = await c.waitFor('input_audio_buffer.speech_stopped');
    expect(stopped.audio_end_ms).toBeGreaterThan(started.audio_start_ms);
    const heard = await c.waitFor('conversation.item.input_audio_transcription.completed');
    expect(heard.transcript).toBe('what time is it');
    const done = await c.waitFor('response.done');
    expect(done.response.status).toBe('completed');
    const audio = Buffer.concat(
      c.events.filter((e) => e.type === 'response.output_audio.delta').map((e) => Buffer.from(e.delta, 'base64')),
    );
    const transcript = (await c.waitFor('response.output_audio_transcript.done')).transcript;
    expect(transcript).toContain('You said: what time is it.');
    expect(decodeTones(audio, 24000)).toBe(transcript);
    const deltas = c.events
      .filter((e) => e.type === 'response.output_audio_transcript.delta')
      .map((e) => e.delta)
      .join('');
    expect(deltas).toBe(transcript);
    const order = c.types().filter((t) => /speech_|committed|transcription|response\.(created|done)/.test(t));
    expect(order).toEqual([
      'input_audio_buffer.speech_started',
      'input_audio_buffer.speech_stopped',
      'input_audio_buffer.committed',
      'conversation.item.input_audio_transcription.completed',
      'response.created',
      'response.done',
    ]);
    c.close();
  });

  it(
    'speaks G.711 mu-law at 8 kHz when the session asks for audio/pcmu, and can use the legacy event ' + 'names',
    async () => {
      emu.core.settings.realtimeLegacyEvents = 1;
      const c = await Client.open();
      c.send({
        type: 'session.update',
        session: { audio: { input: { format: { type: 'audio/pcmu' } }, output: { format: { type: 'audio/pcmu' } } } },
      });
      await c.waitFor('session.updated');
      c.appendPcm(Buffer.concat([encodeTones('hello phone', 8000), silence(800, 8000)]), mulawEncode, 1600);
      expect((await c.waitFor('conversation.item.input_audio_transcription.completed')).transcript).toBe('hello phone');
      await c.waitFor('response.done');
      const audio = Buffer.concat(
        c.events.filter((e) => e.type === 'response.audio.delta').map((e) => Buffer.from(e.delta, 'base64')),
      );
      expect(c.types()).not.toContain('response.output_audio.delta');
      expect(decodeTones(mulawDecode(audio), 8000)).toBe(
        (await c.waitFor('response.audio_transcript.done')).transcript,
      );
      c.close();
    },
  );

  it('says an answer N times over (realtimeAnswerRepeat); unpaced audio waits for a reader behind', async () => {
    emu.core.settings.realtimeAnswerRepeat = 100;
    try {
      const c = await Client.open();
      await c.waitFor('session.created');
      c.appendPcm(Buffer.concat([silence(200), encodeTones('what time is it', 24000), silence(800)]));
      await c.waitFor('response.created');
      // the client stops reading: ~6 minutes of audio (~23 MB of JSON) cannot all be sent
      c.ws.pause();
      await new Promise((r) => setTimeout(r, 500));
      const log = () => realtimeLogs(emu.core).at(-1)!.responses.at(-1)!;
      expect(log().status).toBe('in_progress');
      c.ws.resume();
      expect((await c.waitFor('response.done')).response.status).toBe('completed');
      const transcript = (await c.waitFor('response.output_audio_transcript.done')).transcript as string;
      const said = transcript.slice(0, (transcript.length + 1) / 100 - 1);
      expect(said).toMatch(/^You said: what time is it\. /);
      expect(transcript).toBe(Array(100).fill(said).join(' '));
      const audio = Buffer.concat(
        c.events.filter((e) => e.type === 'response.output_audio.delta').map((e) => Buffer.from(e.delta, 'base64')),
      );
      expect(audio.length).toBe(encodeTones(`${said} `, 24000, { speed: 1.5 }).length * 100);
      expect(decodeTones(audio.subarray(0, audio.length / 50), 24000).trim()).toBe(`${said} ${said}`);
      c.close();
    } finally {
      emu.core.settings.realtimeAnswerRepeat = 1;
    }
  });

  it('commits by hand without server VAD and answers on response.create', async () => {
    const c = await Client.open();
    c.send({ type: 'session.update', session: { turn_detection: null } });
    expect((await c.waitFor('session.updated')).session.turn_detection).toBeNull();
    c.send({ type: 'input_audio_buffer.commit' });
    expect((await c.waitFor('error')).error.code).toBe('input_audio_buffer_commit_empty');
    c.appendPcm(encodeTones('manual turn', 24000));
    c.send({ type: 'input_audio_buffer.commit' });
    expect((await c.waitFor('conversation.item.input_audio_transcription.completed')).transcript).toBe('manual turn');
    expect(c.types()).not.toContain('response.created');
    c.send({ type: 'response.create' });
    expect((await c.waitFor('response.done')).response.status).toBe('completed');
    c.close();
  });

  it(
    'names content parts after the events: output_audio with response.output_audio.*, audio with the legacy ' + 'names',
    async () => {
      for (const [legacy, part, delta] of [
        [0, 'output_audio', 'response.output_audio.delta'],
        [1, 'audio', 'response.audio.delta'],
      ] as const) {
        emu.core.settings.realtimeLegacyEvents = legacy;
        const c = await Client.open();
        c.send({ type: 'session.update', session: { turn_detection: null } });
        await c.waitFor('session.updated');
        c.send({
          type: 'conversation.item.create',
          item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'name the part types' }] },
        });
        c.send({ type: 'response.create' });
        const done = await c.waitFor('response.done');
        expect(c.types()).toContain(delta);
        expect((await c.waitFor('response.content_part.added')).part.type).toBe(part);
        expect((await c.waitFor('response.content_part.done')).part).toMatchObject({
          type: part,
          transcript: expect.any(String),
        });
        const item = (await c.waitFor('response.output_item.done')).item;
        expect(item.content.map((p: { type: string }) => p.type)).toEqual([part]);
        expect(done.response.output[0].content[0].type).toBe(part);
        c.close();
      }
      emu.core.settings.realtimeLegacyEvents = 0;
    },
  );

  it('asks for a named tool with arguments valid against its schema, then answers with the output', async () => {
    const c = await Client.open();
    const parameters = {
      type: 'object',
      properties: {
        city: { type: 'string', enum: ['Paris', 'Oslo'] },
        days: { type: 'integer', minimum: 1, maximum: 3 },
      },
      required: ['city', 'days'],
    };
    c.send({
      type: 'session.update',
      session: {
        tools: [
          { type: 'function', name: 'get_weather', description: 'weather', parameters },
          { type: 'function', function: { name: 'other_tool', parameters: { type: 'object' } } },
        ],
      },
    });
    expect((await c.waitFor('session.updated')).session.tools.map((t: Ev) => t.name)).toEqual([
      'get_weather',
      'other_tool',
    ]);
    c.appendPcm(Buffer.concat([encodeTones('please check the get weather tool', 24000), silence(800)]));
    const call = await c.waitFor('response.function_call_arguments.done');
    expect(call.name).toBe('get_weather');
    const args = JSON.parse(call.arguments);
    expect(['Paris', 'Oslo']).toContain(args.city);
    expect(args.days).toBeGreaterThanOrEqual(1);
    expect(args.days).toBeLessThanOrEqual(3);
    await c.waitFor('response.done');
    c.send({
      type: 'conversation.item.create',
      item: { type: 'function_call_output', call_id: call.call_id, output: 'sunny and mild' },
    });
    await c.waitFor('conversation.item.added', 2);
    c.send({ type: 'response.create' });
    const done = await c.waitFor('response.done', 2);
    expect(done.response.status).toBe('completed');
    const transcript = (await c.waitFor('response.output_audio_transcript.done')).transcript;
    expect(transcript).toBe('The get_weather tool says: sunny and mild');
    const audio = Buffer.concat(
      c.events.filter((e) => e.type === 'response.output_audio.delta').map((e) => Buffer.from(e.delta, 'base64')),
    );
    expect(decodeTones(audio, 24000)).toBe(transcript);
    c.close();
  });

  it('cancels the answer when the user starts speaking over it (server VAD barge-in)', async () => {
    emu.core.settings.realtimePace = 1;
    const c = await Client.open();
    await c.waitFor('session.created');
    c.appendPcm(Buffer.concat([encodeTones('tell me a long story please', 24000), silence(700)]));
    await c.waitFor('response.output_audio.delta');
    c.appendPcm(encodeTones('stop', 24000));
    await c.waitFor('input_audio_buffer.speech_started', 2);
    const done = await c.waitFor('response.done');
    expect(done.response).toMatchObject({ status: 'cancelled', status_details: { reason: 'turn_detected' } });
    c.close();
  });

  it('refuses unknown models and reasoning efforts', async () => {
    const c = await Client.open('?model=voice-9');
    const err = await c.waitFor('error');
    expect(err.error.message).toContain('voice-latest, voice-3.0, voice-2.0');
    expect((await c.waitClose()).code).toBe(1008);
    const d = await Client.open('?reasoning.effort=max');
    expect((await d.waitFor('error')).error.message).toContain('high or none');
  });

  it('joins an active SIP call, where the emulator plays the caller and hangs up after the answer', async () => {
    const { call } = await startInboundCall(emu.core, { caller_script: ['I need help with my order'] });
    const c = await Client.open(`?call_id=${call.call_id}`);
    await c.waitFor('session.created');
    c.send({ type: 'session.update', session: { instructions: 'You are a shop assistant' } });
    expect((await c.waitFor('conversation.item.input_audio_transcription.completed')).transcript).toBe(
      'I need help with my order',
    );
    expect((await c.waitFor('response.output_audio_transcript.done')).transcript).toContain(
      'You said: I need help with my order.',
    );
    expect(await c.waitClose()).toEqual({ code: 1000, reason: 'call ended' });
    const res = await fetch(`${emu.url}/_emulator/calls/${call.call_id}`);
    expect(await res.json()).toMatchObject({ status: 'ended', ended_by: 'caller' });
    const log = realtimeLogs(emu.core).find((l) => l.call_id === call.call_id)!;
    expect(log.transcripts).toEqual(['I need help with my order']);
  });

  it('refuses a call that is unknown or ended, and client secrets on call sessions', async () => {
    const c = await Client.open('?call_id=rtc_nope');
    const err = await c.waitFor('error');
    expect(err.error).toMatchObject({ code: 'not_found', message: 'Call rtc_nope was not found or is not active' });
    expect(c.types()).not.toContain('session.created');
    const { call } = await startInboundCall(emu.core, {});
    const secret = await (
      await fetch(`${emu.url}/v1/realtime/client_secrets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
        body: '{}',
      })
    ).json();
    const d = await Client.open(`?call_id=${call.call_id}`, {}, [`svc-client-secret.${secret.value}`]);
    expect((await d.waitFor('error')).error.code).toBe('permission_denied');
    // without call_id the client secret is fine
    const e = await Client.open('', {}, [`svc-client-secret.${secret.value}`]);
    await e.waitFor('session.created');
    e.close();
  });

  it('lists what each session saw on /_emulator/realtime', async () => {
    const res = await fetch(`${emu.url}/_emulator/realtime`);
    type Response = { turn_ended_at?: number; created_at: number; audio_start?: number; function_call?: unknown };
    const body = (await res.json()) as { sessions: { appends: number[]; responses: Response[] }[] };
    expect(body.sessions.length).toBeGreaterThan(3);
    expect(body.sessions.some((s) => s.appends.length > 0 && s.responses.length > 0)).toBe(true);
    // a response to a user turn says when that turn ended (speech_stopped sent / the commit received), before the
    // response began; the answer after a tool's output answers no user turn
    const responses = body.sessions.flatMap((s) => s.responses);
    const afterTurns = responses.filter((r) => r.turn_ended_at !== undefined);
    expect(afterTurns.length).toBeGreaterThan(3);
    for (const r of afterTurns) expect(r.turn_ended_at).toBeLessThanOrEqual(r.created_at);
    const toolSession = body.sessions.find((s) => s.responses.some((r) => r.function_call))!;
    expect(toolSession.responses.map((r) => r.turn_ended_at !== undefined)).toEqual([true, false]);
  });
});

// issue 39: the protocol's conversation.item.delete and .truncate, as the realtime protocol defines them
describe('realtime conversation items: delete and truncate', () => {
  /** a text turn answered with audio: the user's item id, the answer's item id and its audio in ms */
  async function answered(c: Client, text: string, n = 1) {
    c.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
    });
    const user = (await c.waitFor('conversation.item.added', n)).item.id as string;
    c.send({ type: 'response.create' });
    const done = await c.waitFor('response.done', n);
    const itemId = done.response.output[0].id as string;
    const bytes = c.events
      .filter((e) => e.type === 'response.output_audio.delta' && e.item_id === itemId)
      .reduce((sum, e) => sum + Buffer.from(e.delta, 'base64').length, 0);
    return { user, itemId, audioMs: Math.round((bytes / 2 / 24000) * 1000), transcript: done.response.output[0] };
  }

  it('truncate cuts the answer at audio_end_ms (conversation.item.truncated); past it: invalid_value', async () => {
    const c = await Client.open();
    c.send({ type: 'session.update', session: { turn_detection: null } });
    await c.waitFor('session.updated');
    const { user, itemId, audioMs } = await answered(c, 'tell me about the weather');
    expect(audioMs).toBeGreaterThan(1000);
    c.send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: 800 });
    const truncated = await c.waitFor('conversation.item.truncated');
    expect(truncated).toMatchObject({ item_id: itemId, content_index: 0, audio_end_ms: 800 });
    const session = realtimeLogs(emu.core).at(-1)!;
    expect(session.truncations).toEqual([{ item_id: itemId, audio_end_ms: 800 }]);
    // what was cut is gone: past 800 ms now, another part, a user's item, an unknown id
    const refusals: [Record<string, unknown>, string, string][] = [
      [{ item_id: itemId, content_index: 0, audio_end_ms: 801 }, 'audio_end_ms', `item ${itemId} has 800 ms of audio`],
      [{ item_id: itemId, content_index: 1, audio_end_ms: 100 }, 'content_index', 'has one content part (0)'],
      [{ item_id: user, content_index: 0, audio_end_ms: 100 }, 'item_id', 'is not an assistant message with audio'],
      [{ item_id: 'item_nope', content_index: 0, audio_end_ms: 100 }, 'item_id', 'No item with id "item_nope"'],
    ];
    for (const [i, [fields, param, message]] of refusals.entries()) {
      c.send({ type: 'conversation.item.truncate', ...fields, event_id: `ev_${i}` });
      const error = (await c.waitFor('error', i + 1)).error;
      expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value', param, event_id: `ev_${i}` });
      expect(error.message).toContain(message);
    }
    expect(c.events.filter((e) => e.type === 'conversation.item.truncated')).toHaveLength(1);
    c.close();
  });

  it('delete removes an item (conversation.item.deleted): the next answer no longer hears it', async () => {
    const c = await Client.open();
    c.send({ type: 'session.update', session: { turn_detection: null } });
    await c.waitFor('session.updated');
    const first = await answered(c, 'remember the word pineapple');
    c.send({ type: 'conversation.item.delete', item_id: first.user });
    expect(await c.waitFor('conversation.item.deleted')).toMatchObject({ item_id: first.user });
    c.send({ type: 'conversation.item.delete', item_id: first.itemId });
    expect(await c.waitFor('conversation.item.deleted', 2)).toMatchObject({ item_id: first.itemId });
    // nothing of the user's is left: the emulator's answer to an empty conversation
    c.send({ type: 'response.create' });
    const done = await c.waitFor('response.done', 2);
    expect(done.response.output[0].content[0].transcript).toBe('Hello, this is the emulator. How can I help?');
    c.send({ type: 'conversation.item.delete', item_id: first.user });
    expect((await c.waitFor('error')).error).toMatchObject({ code: 'invalid_value', param: 'item_id' });
    c.close();
  });

  it('a client event the document does not describe (conversation.item.retrieve) is refused naming it', async () => {
    const c = await Client.open();
    await c.waitFor('session.created');
    c.send({ type: 'conversation.item.retrieve', item_id: 'item_1', event_id: 'ev_r' });
    const error = (await c.waitFor('error')).error;
    expect(error).toMatchObject({ type: 'invalid_request_error', event_id: 'ev_r' });
    expect(error.message).toContain('conversation.item.retrieve');
    c.close();
  });
});
