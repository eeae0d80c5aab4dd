// Issue 26 items 7 and 8: a deleted (or expired, unknown, other team's) file id is refused in attachments in every
// convention, and a realtime session refuses a voice that TTS and agents refuse (not built in, not the team's).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { customVoices } from '../src/voice/voices.js';
import { startTestEmulator, type TestEmulator } from 'svc-emulator/testing';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const auth = (key = emu.key) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

async function upload(key = emu.key): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob(['attached notes']), 'notes.txt');
  const r = await fetch(`${emu.url}/v1/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  expect(r.status).toBe(200);
  return ((await r.json()) as { id: string }).id;
}

/** a request attaching file `id` in each convention: chat, responses, messages */
const ATTACHING: [string, (id: string) => unknown][] = [
  [
    '/v1/chat/completions',
    (id) => ({
      model: 'svc-4',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'read' },
            { type: 'file', file: { file_id: id } },
          ],
        },
      ],
    }),
  ],
  [
    '/v1/responses',
    (id) => ({
      model: 'svc-4',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_file', file_id: id }] }],
    }),
  ],
  [
    '/v1/messages',
    (id) => ({
      model: 'svc-4',
      max_tokens: 50,
      messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'file', file_id: id } }] }],
    }),
  ],
];

const post = (path: string, body: unknown, key = emu.key) =>
  fetch(`${emu.url}${path}`, { method: 'POST', headers: auth(key), body: JSON.stringify(body) });

describe('file ids in attachments', () => {
  it.each(ATTACHING)('%s accepts a live file and refuses it once deleted (404 naming the id)', async (path, body) => {
    const id = await upload();
    expect((await post(path, body(id))).status).toBe(200);
    expect((await fetch(`${emu.url}/v1/files/${id}`, { method: 'DELETE', headers: auth() })).status).toBe(200);
    const r = await post(path, body(id));
    expect(r.status).toBe(404);
    expect(await r.text()).toContain(`No file with id ${id}`);
  });

  it.each(ATTACHING)('%s refuses an unknown id and another team’s file', async (path, body) => {
    expect((await post(path, body('file_never_made'))).status).toBe(404);
    const other = emu.addKey({ team_id: 'team_other' }).key;
    const theirs = await upload(other);
    expect((await post(path, body(theirs))).status).toBe(404);
    expect((await post(path, body(theirs), other)).status).toBe(200);
  });
});

type Ev = Record<string, any> & { type: string };

/** the first event of `type` (or an error) after sending `update` on a new session */
async function sessionAnswer(update: Record<string, unknown>, key = emu.key): Promise<Ev> {
  const ws = new WebSocket(`${emu.wsUrl}/v1/realtime`, { headers: { authorization: `Bearer ${key}` } });
  try {
    const events: Ev[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.once('error', reject);
      ws.on('message', (d) => {
        const ev = JSON.parse(d.toString()) as Ev;
        events.push(ev);
        if (ev.type === 'session.created') ws.send(JSON.stringify({ type: 'session.update', session: update }));
        if (ev.type === 'session.updated' || ev.type === 'error') resolve();
      });
    });
    return events.at(-1)!;
  } finally {
    ws.close();
  }
}

describe('realtime session voices', () => {
  it('accepts a built-in voice in any case, and a custom voice of the team', async () => {
    expect((await sessionAnswer({ voice: 'Ara' })).session.voice).toBe('ara');
    customVoices(emu.core).set('abcd1234', {
      voice_id: 'abcd1234',
      team_id: 'team_emulator',
      name: 'ours',
      created_at: new Date().toISOString(),
      content_type: 'audio/wav',
      filename: 'ours.wav',
      size: 0,
      blob: 'none',
    });
    const ours = emu.addKey({ team_id: 'team_emulator' }).key;
    expect((await sessionAnswer({ audio: { output: { voice: 'abcd1234' } } }, ours)).session.voice).toBe('abcd1234');
  });

  it.each([['nosuchvo'], ['zzzz9999'], ['abcd1234'], [''], [42]])(
    'refuses %j as TTS does (error event naming session.voice)',
    async (voice) => {
      // abcd1234 is another team's custom voice for the test key's team
      const other = emu.addKey({ team_id: 'team_other' }).key;
      const ev = await sessionAnswer({ voice }, other);
      expect(ev.type).toBe('error');
      expect(ev.error).toMatchObject({ code: 'invalid_value', param: 'session.voice' });
      // a string's id is the session's to look up; a number is refused by the document's type
      expect(ev.error.message).toContain(
        typeof voice === 'string'
          ? 'not a built-in voice (eve, ara, rex, sal, leo) or a custom voice of the team'
          : 'Invalid value for `session.voice`: expected a string',
      );
      const tts = await post('/v1/tts', { text: 'hi', language: 'en', voice_id: voice }, other);
      expect(tts.status).toBe(400);
    },
  );
});
