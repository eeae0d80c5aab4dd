import { encodeWav } from 'svc-formats/audio-codecs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from 'svc-emulator/testing';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

/** A PCM WAV of `seconds` of silence (8 kHz mono 16-bit). */
function wav(seconds: number): Buffer<ArrayBuffer> {
  return encodeWav(Buffer.alloc(Math.round(seconds * 8000) * 2), { sampleRate: 8000, channels: 1 });
}

async function upload(file: Buffer<ArrayBuffer>, filename: string, type: string) {
  const form = new FormData();
  form.append('name', 'test');
  form.append('file', new Blob([file], { type }), filename);
  const res = await fetch(`${emu.url}/v1/custom-voices`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.key}` },
    body: form,
  });
  return {
    status: res.status,
    warning: res.headers.get('x-emulator-warning'),
    body: (await res.json()) as Record<string, any>,
  };
}

describe('emulator custom voices', () => {
  it('accepts a clip of up to 120 s and returns an 8-character id; refuses a longer WAV and non-audio', async () => {
    const ok = await upload(wav(120), 'a.wav', 'audio/wav');
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      voice_id: expect.stringMatching(/^[a-z0-9]{8}$/),
      name: 'test',
      created_at: expect.stringMatching(/Z$/),
    });
    const long = await upload(wav(120.5), 'b.wav', 'audio/wav');
    expect(long.status).toBe(400);
    expect(long.body.error).toContain('at most 120 seconds');
    const text = await upload(Buffer.from('hello'), 'notes.txt', 'text/plain');
    expect(text.status).toBe(400);
  });

  it('list limit 1..1000 (400 outside), delete returns {deleted: true}', async () => {
    const h = { authorization: `Bearer ${emu.key}` };
    expect((await fetch(`${emu.url}/v1/custom-voices?limit=0`, { headers: h })).status).toBe(400);
    expect((await fetch(`${emu.url}/v1/custom-voices?limit=1001`, { headers: h })).status).toBe(400);
    const list = (await (await fetch(`${emu.url}/v1/custom-voices?limit=1000`, { headers: h })).json()) as {
      voices: { voice_id: string }[];
    };
    const id = list.voices[0]!.voice_id;
    const del = await fetch(`${emu.url}/v1/custom-voices/${id}`, { method: 'DELETE', headers: h });
    expect(await del.json()).toEqual({ deleted: true });
    expect((await fetch(`${emu.url}/v1/custom-voices/${id}/audio`, { headers: h })).status).toBe(404);
  });

  it("takes the name the document describes (the form's and the rename's), its length the document's", async () => {
    const made = await upload(wav(1), 'a.wav', 'audio/wav');
    // the form's name part is described: no unknown-field warning
    expect([made.status, made.warning]).toEqual([200, null]);
    const rename = (name: unknown) =>
      fetch(`${emu.url}/v1/custom-voices/${made.body.voice_id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      }).then(async (r) => [r.status, ((await r.json()) as { error?: string; name?: string }).error ?? ''] as const);
    expect(await rename('x'.repeat(256))).toEqual([400, 'Invalid value for `name`: at most 255 characters (got 256)']);
    expect(await rename(7)).toEqual([400, 'Invalid value for `name`: expected a string']);
    expect(await rename('x'.repeat(255))).toEqual([200, '']);
  });
});

// The name's limit is the document's (its maxLength on the form and on PATCH's body), and the document describes the
// field: an emulator with --strict (a field the document does not describe: 400) takes a name on both.
describe('emulator custom voices: the name, as the document states it', () => {
  let strict: TestEmulator;
  beforeAll(async () => {
    strict = await startTestEmulator({ strict: true });
  });
  afterAll(() => strict.close());
  const h = () => ({ authorization: `Bearer ${strict.key}` });

  async function create(name: string) {
    const form = new FormData();
    form.append('name', name);
    form.append('file', new Blob([wav(1)], { type: 'audio/wav' }), 'a.wav');
    const res = await fetch(`${strict.url}/v1/custom-voices`, { method: 'POST', headers: h(), body: form });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }
  async function rename(id: string, name: unknown) {
    const res = await fetch(`${strict.url}/v1/custom-voices/${id}`, {
      method: 'PATCH',
      headers: { ...h(), 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  it('255 characters (emoji count as one) are taken on create and rename; 256 are a 400 naming the limit', async () => {
    const longest = '🎙'.repeat(255);
    const made = await create(longest);
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.name).toBe(longest);
    const over = await create(`${longest}x`);
    expect(over.status).toBe(400);
    expect(over.body.error).toBe('Invalid value for `name`: at most 255 characters (got 256)');

    const id = made.body.voice_id as string;
    const renamed = await rename(id, 'narrator');
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.name).toBe('narrator');
    const tooLong = await rename(id, 'n'.repeat(256));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toBe('Invalid value for `name`: at most 255 characters (got 256)');
    expect((await rename(id, 42)).body.error).toBe('Invalid value for `name`: expected a string');
    expect((await rename(id, null)).body.name).toBeNull();
  });
});
