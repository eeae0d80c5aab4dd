// Record and replay (src/replay/, README "Record and replay"): what the recorder keeps (no credential, audio beside
// the fixture), how the replay matches (method, path, query, body fields; recordings of one request in order), what
// it does with a request it has no recording of (the emulator's own answer, with the body handed on to the route; or
// under strict a 404 naming the closest), pacing, and the fixture as untrusted input (names, sizes, version).
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from 'svc-emulator';
import { startRecorder } from 'svc-emulator/record';
import { ReplayFixture, ReplayFixtureError } from 'svc-emulator/replay';
import { startTestEmulator, type TestEmulator } from 'svc-emulator/testing';

const BIN = fileURLToPath(new URL('../bin/svc-emulator.js', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'svc-replay-'));
let upstream: TestEmulator;
let fixture: string;
let localKey: string;

const chatBody = (text: string, stream = false) =>
  JSON.stringify({ model: 'svc-4', stream, max_tokens: 12, messages: [{ role: 'user', content: text }] });

async function call(url: string, key: string, path: string, init: RequestInit = {}) {
  const r = await fetch(`${url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
  });
  return { status: r.status, text: await r.text() };
}

function upload(url: string, key: string, content: string) {
  const form = new FormData();
  form.append('purpose', 'assistants');
  form.append('file', new Blob([content]), 'notes.txt');
  return fetch(`${url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
}

const unknownField = JSON.stringify({ ...JSON.parse(chatBody('hello')), output_config: { effort: 'low' } });

/** what the recording saw, in order */
const seen: Record<string, string> = {};

beforeAll(async () => {
  upstream = await startTestEmulator({ seed: 3 });
  fixture = join(root, 'rec.json');
  const rec = await startRecorder({ upstream: upstream.url, key: upstream.key, out: fixture });
  localKey = rec.localKey;
  seen.listBefore = (await call(rec.url, localKey, '/v1/files')).text;
  const up = await upload(rec.url, localKey, 'kept notes');
  seen.upload = await up.text();
  seen.listAfter = (await call(rec.url, localKey, '/v1/files')).text;
  seen.chat = (await call(rec.url, localKey, '/v1/chat/completions', { method: 'POST', body: chatBody('hello') })).text;
  seen.secret = (
    await call(rec.url, localKey, '/v1/realtime/client_secrets', { method: 'POST', body: JSON.stringify({}) })
  ).text;
  upstream.core.settings.tokenDelayMs = 100;
  seen.stream = (
    await call(rec.url, localKey, '/v1/chat/completions', { method: 'POST', body: chatBody('a slow story', true) })
  ).text;
  upstream.core.settings.tokenDelayMs = 0;
  // a field the API document does not describe, which the upstream ignored
  seen.unknown = (await call(rec.url, localKey, '/v1/chat/completions', { method: 'POST', body: unknownField })).text;
  await rec.close();
});
afterAll(async () => {
  await upstream.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the recorder', () => {
  it('refuses a client without its own key, and sends the user key upstream, never into the fixture', async () => {
    const text = readFileSync(fixture, 'utf8');
    expect(text).not.toContain(upstream.key);
    expect(text).not.toContain(localKey);
    expect(text).not.toMatch(/authorization|svc-cs-/i);
    // the client secret's value is replaced, the rest of the reply kept
    expect(JSON.parse(seen.secret!).value).toMatch(/^svc-cs-/);
    expect(text).toContain('[REDACTED]');
    const rec = await startRecorder({ upstream: upstream.url, key: upstream.key, out: join(root, 'other.json') });
    try {
      expect((await call(rec.url, upstream.key, '/v1/models')).status).toBe(401);
      expect((await call(rec.url, 'wrong', '/v1/models')).status).toBe(401);
    } finally {
      await rec.close();
    }
    expect(upstream.requests().every((q) => q.headers.authorization === '[present]')).toBe(true);
  });

  it('sends every request to the upstream origin, whatever URL the request line names', async () => {
    const decoy = await startTestEmulator();
    const rec = await startRecorder({ upstream: upstream.url, key: upstream.key, out: join(root, 'origin.json') });
    try {
      upstream.clearRequests();
      for (const target of [`${decoy.url}/v1/models`, `//${new URL(decoy.url).host}/v1/models`]) {
        const status = await new Promise<number | undefined>((resolve, reject) => {
          const { hostname, port } = new URL(rec.url);
          const q = request({ hostname, port, path: target, headers: { authorization: `Bearer ${rec.localKey}` } });
          q.on('response', (r) => (r.resume(), resolve(r.statusCode)));
          q.on('error', reject);
          q.end();
        });
        expect(status).toBe(200);
      }
      expect(decoy.requests()).toEqual([]);
      expect(upstream.requests().map((q) => q.path)).toEqual(['/v1/models', '/v1/models']);
    } finally {
      await rec.close();
      await decoy.close();
    }
  });

  it('an upstream it cannot reach: 502 to the client, nothing kept, and it still stops', async () => {
    const gone = await startEmulator({ quietLog: true });
    const url = gone.url;
    await gone.close();
    const out = join(root, 'unreached.json');
    const rec = await startRecorder({ upstream: url, key: upstream.key, out });
    const r = await call(rec.url, rec.localKey, '/v1/models');
    expect(r.status).toBe(502);
    expect(JSON.parse(r.text).error).toMatch(/^the upstream could not be reached: .*ECONNREFUSED/);
    await rec.close();
    expect(JSON.parse(readFileSync(out, 'utf8')).exchanges).toEqual([]);
  });

  it('keeps a stream as timed pieces, one per event line group as it came', () => {
    const doc = ReplayFixture.load(fixture).doc;
    const stream = doc.exchanges[5]!;
    expect(stream.kind).toBe('http');
    if (stream.kind !== 'http') return;
    expect(stream.reply.body.length).toBeGreaterThan(3);
    const times = stream.reply.body.map((p) => p.t);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.at(-1)!).toBeGreaterThan(times[0]!);
  });
});

describe('serve --replay', () => {
  let emu: Emulator;
  let strict: Emulator;
  const KEY = 'svc-emulator-local-key-0000000000000000';
  beforeAll(async () => {
    const loaded = ReplayFixture.load(fixture);
    emu = await startEmulator({ quietLog: true, replay: { fixture: loaded, pace: 0 } });
    strict = await startEmulator({
      quietLog: true,
      strict: true,
      replay: { fixture: ReplayFixture.load(fixture), strict: true },
    });
  });
  afterAll(async () => {
    await emu.close();
    await strict.close();
  });

  it('answers recordings of the same request in their order, then the last one again', async () => {
    expect((await call(emu.url, KEY, '/v1/files')).text).toBe(seen.listBefore);
    expect((await upload(emu.url, KEY, 'kept notes')).status).toBe(200);
    expect((await call(emu.url, KEY, '/v1/files')).text).toBe(seen.listAfter);
    expect((await call(emu.url, KEY, '/v1/files')).text).toBe(seen.listAfter);
    const chat = await call(emu.url, KEY, '/v1/chat/completions', { method: 'POST', body: chatBody('hello') });
    expect(chat.text).toBe(seen.chat);
  });

  it('with no recording: the emulator answers itself, the body read for matching handed on to the route', async () => {
    const chat = await call(emu.url, KEY, '/v1/chat/completions', { method: 'POST', body: chatBody('lighthouses') });
    expect(chat.status).toBe(200);
    expect(chat.text).not.toBe(seen.chat);
    expect(JSON.parse(chat.text).choices[0].message.content).toMatch(/lighthouses/);
    const other = await upload(emu.url, KEY, 'other notes');
    expect(other.status).toBe(200);
    expect((await other.json()).bytes).toBe('other notes'.length);
    // a replayed answer still wants a key the emulator knows
    expect((await call(emu.url, 'svc-wrong-key-000000000000', '/v1/files')).status).toBe(400);
  });

  it('--replay-strict: 404 naming the closest recording and what differs', async () => {
    const r = await call(strict.url, KEY, '/v1/chat/completions', { method: 'POST', body: chatBody('lighthouses') });
    expect(r.status).toBe(404);
    expect(JSON.parse(r.text).error).toMatch(
      /^No recording matches POST \/v1\/chat\/completions; the closest is #4 POST \/v1\/chat\/completions, which differs in body messages$/,
    );
    const models = await call(strict.url, KEY, '/v1/models');
    expect(models.status).toBe(404);
    expect(JSON.parse(models.text).error).toMatch(/the closest is #\d+ GET \/v1\/files, which differs in the path/);
  });

  it('a replayed request is checked against the API document: an unknown field warned, or 400 (--strict)', async () => {
    const init = { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' } };
    const warned = await fetch(`${emu.url}/v1/chat/completions`, { ...init, body: unknownField });
    expect(await warned.text()).toBe(seen.unknown);
    expect(warned.headers.get('x-emulator-warning')).toBe('unknown field ignored: output_config');
    const refused = await call(strict.url, KEY, '/v1/chat/completions', { method: 'POST', body: unknownField });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text).error).toMatch(/^Unknown field `output_config`/);
  });

  it('streams at the recorded pace: the first event comes before the rest of the stream has been written', async () => {
    const r = await fetch(`${strict.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: chatBody('a slow story', true),
    });
    const reader = r.body!.getReader();
    const first = Buffer.from((await reader.read()).value!).toString();
    let rest = '';
    for (let c = await reader.read(); !c.done; c = await reader.read()) rest += Buffer.from(c.value).toString();
    expect(first.length).toBeGreaterThan(0);
    expect(first + rest).toBe(seen.stream);
    // the recorded stream took over a second (12 tokens 100 ms apart): its end was not there with its first read
    expect(first).not.toContain('[DONE]');
  });
});

describe('the fixture as input', () => {
  const write = (name: string, doc: unknown) => {
    const path = join(root, name);
    writeFileSync(path, JSON.stringify(doc));
    return path;
  };
  const piece = (data: unknown) => ({
    version: 1,
    exchanges: [
      {
        kind: 'http',
        id: 1,
        request: { method: 'GET', path: '/v1/models', query: {}, headers: {} },
        reply: { status: 200, headers: {}, latency_ms: 0, body: [{ t: 0, data }] },
      },
    ],
  });

  it('refuses another version, a file name outside its folder, a range beyond a file, and a link', () => {
    const load = (path: string) => () => ReplayFixture.load(path);
    expect(load(write('v2.json', { version: 2, exchanges: [] }))).toThrow(/version 2 is not supported .*version 1/);
    expect(load(write('up.json', piece({ file: '../rec.json', offset: 0, length: 1 })))).toThrow(/a plain name in/);
    mkdirSync(join(root, 'short.audio'));
    writeFileSync(join(root, 'short.audio', 'a.bin'), 'abc');
    expect(load(write('short.json', piece({ file: 'a.bin', offset: 2, length: 5 })))).toThrow(/beyond its 3 bytes/);
    mkdirSync(join(root, 'link.audio'));
    symlinkSync(fixture, join(root, 'link.audio', 'a.bin'));
    expect(load(write('link.json', piece({ file: 'a.bin', offset: 0, length: 1 })))).toThrow(ReplayFixtureError);
  });

  it('svc-emulator serve --replay: a bad flag or fixture is exit 2 naming it; a good one serves', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const p = spawn(process.execPath, [BIN, 'serve', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        p.stderr.on('data', (d: Buffer) => (stderr += d));
        p.on('exit', (code) => resolve({ code, stderr }));
      });
    expect(await run(['--replay', fixture, '--pace', '101'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--pace: "101" is not allowed \(a number from 0 to 100/),
    });
    expect(await run(['--replay-strict'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/needs --replay/) });
    const bad = write('bad.json', { version: 9, exchanges: [] });
    expect(await run(['--replay', bad])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--replay .*bad\.json: version 9 is not supported/),
    });
    const p = spawn(process.execPath, [BIN, 'serve', '--replay', fixture, '--replay-strict', '--pace', '0'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const url = await new Promise<string>((resolve) =>
        p.stdout.once('data', (d: Buffer) => resolve(String(d).trim())),
      );
      expect((await call(url, KEY_OF_BIN, '/v1/files')).text).toBe(seen.listBefore);
    } finally {
      p.kill('SIGINT');
    }
  });
});

const KEY_OF_BIN = 'svc-emulator-local-key-0000000000000000';
