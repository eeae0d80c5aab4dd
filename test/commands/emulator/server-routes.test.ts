// The emulator's core: statuses and error bodies of wire-details.md, request ids, fault injection, persistence.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from 'svc-emulator';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const auth = () => ({ authorization: `Bearer ${emu.key}` });

describe('emulator statuses and error bodies', () => {
  it('401 without or with a malformed Authorization header, as JSON {code, error}, with x-request-id', async () => {
    const malformed: Record<string, string>[] = [{}, { authorization: 'Token abc' }];
    for (const headers of malformed) {
      const res = await fetch(`${emu.url}/v1/models`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const body = await res.json();
      expect(body.code).toBe('unauthenticated');
      expect(typeof body.error).toBe('string');
    }
  });

  it('400 for a well-formed but unknown key, naming only its redacted form', async () => {
    const res = await fetch(`${emu.url}/v1/models`, { headers: { authorization: 'Bearer svc-unknown-key-abcdef' } });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toEqual({ code: 'invalid-argument', error: expect.stringContaining('svc…cdef') });
    expect(body.error).not.toContain('svc-unknown-key-abcdef');
  });

  it('404 for an unknown route, 405 for a wrong method, 415 for a POST without JSON, 422 as plain text', async () => {
    const r404 = await fetch(`${emu.url}/v1/nothing-here`, { headers: auth() });
    expect(r404.status).toBe(404);
    expect((await r404.json()).code).toBe('not-found');
    const r405 = await fetch(`${emu.url}/v1/models`, { method: 'DELETE', headers: auth() });
    expect(r405.status).toBe(405);
    expect(r405.headers.get('allow')).toBe('GET');
    const r415 = await fetch(`${emu.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'text/plain' },
      body: 'hi',
    });
    expect(r415.status).toBe(415);
    const r422 = await fetch(`${emu.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{"messages":[]}',
    });
    expect(r422.status).toBe(422);
    expect(r422.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await r422.text()).toMatch(
      /^Failed to deserialize the JSON body into the target type: missing field `model`/,
    );
  });

  it('the CLI shows a 422 plain-text message as the error', async () => {
    const r = await svcInProcess(['api', 'POST', '/v1/chat/completions', '-F', 'messages=[]'], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/missing field `model`.*HTTP 422/);
  });

  it(
    'maps statuses to exit codes: 401/403 → 4, 404 → 5, 429 after retries → 6, 500 on POST → 7 ' + 'without retry',
    async () => {
      emu.faults.add({ kind: 'status', status: 401, path: '^/v1/me$' });
      expect((await svcInProcess(['whoami'], { emu })).exitCode).toBe(4);
      emu.faults.add({ kind: 'status', status: 403, path: '^/v1/me$' });
      expect((await svcInProcess(['whoami'], { emu })).exitCode).toBe(4);
      expect((await svcInProcess(['models', 'get', 'nope'], { emu })).exitCode).toBe(5);
      emu.faults.add({ kind: 'status', status: 429, retryAfter: '0', path: '^/v1/me$', times: 3 });
      const limited = await svcInProcess(['whoami'], { emu });
      expect(limited.exitCode).toBe(6);
      expect(limited.stderr).toMatch(/HTTP 429, resource-exhausted, request id/);
      emu.clearRequests();
      emu.faults.add({ kind: 'status', status: 500, path: '/v1/chat/completions' });
      const failed = await svcInProcess(['chat', 'hello'], { emu });
      expect(failed.exitCode).toBe(7);
      expect(emu.requests().filter((r) => r.path === '/v1/chat/completions')).toHaveLength(1);
    },
  );

  it('a 429 with Retry-After: 1 is retried after about a second', async () => {
    emu.faults.add({ kind: 'status', status: 429, retryAfter: '1', path: '^/v1/me$' });
    emu.clearRequests();
    const r = await svcInProcess(['whoami'], { emu });
    expect(r.exitCode).toBe(0);
    const times = emu
      .requests()
      .filter((q) => q.path === '/v1/me')
      .map((q: any) => q.time as number);
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
    // no tight upper bound (a loaded machine is slow); this one only catches a unit error (seconds read as ms × 1000)
    expect(times[1]! - times[0]!).toBeLessThan(30_000);
  });

  it('a slow first byte is waited for within --timeout, and reported when it exceeds it', async () => {
    emu.faults.add({ kind: 'slow', delayMs: 300, path: '^/v1/me$' });
    expect((await svcInProcess(['whoami'], { emu })).exitCode).toBe(0);
    emu.faults.add({ kind: 'slow', delayMs: 1500, path: '^/v1/me$', times: 1 });
    const r = await svcInProcess(['whoami', '--timeout', '0.5', '--max-retries', '0'], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/did not answer in time \(see --timeout\)/);
  });
});

describe('deferred chat completions and persistence', () => {
  it('202 while pending, 200 once, then 404 — across separate --emulator invocations sharing a state dir', async () => {
    const dataDir = tempDir();
    const env = { SVC_DATA_DIR: dataDir, SVC_BASE_URL: undefined, SVC_API_KEY: undefined };
    const create = await svcInProcess(['--emulator', 'chat', '--deferred', 'a deferred question'], { key: null, env });
    expect(create.exitCode).toBe(0);
    const id = create.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    // ordering, not timing: the answer is held back until the test releases it in the shared state file
    const stateFile = join(dataDir, 'emulator', 'state.json');
    const setReadyAt = (readyAt: number) => {
      const state = JSON.parse(readFileSync(stateFile, 'utf8'));
      state.collections.chat_deferred[id].ready_at = readyAt;
      writeFileSync(stateFile, JSON.stringify(state));
    };
    setReadyAt(Date.now() + 3_600_000);
    const pending = await svcInProcess(['--emulator', 'chat', 'get', id], { key: null, env });
    expect(pending.exitCode).toBe(1);
    expect(pending.stderr).toMatch(/still pending/);
    setReadyAt(0);
    const done = await svcInProcess(['--emulator', 'chat', 'get', id, '--wait'], { key: null, env });
    expect(done.exitCode).toBe(0);
    expect(done.stdout).toMatch(/^This is the emulator's answer to "a deferred question"/);
    const gone = await svcInProcess(['--emulator', 'chat', 'get', id], { key: null, env });
    expect(gone.exitCode).toBe(5);
  });

  it('--deferred --wait prints the answer; the raw API shows 202 with an empty body', async () => {
    const r = await svcInProcess(['chat', '--deferred', '--wait', 'wait for me', '--json'], { emu });
    expect(JSON.parse(r.stdout).object).toBe('chat.completion');
    const create = await svcInProcess(['chat', '--deferred', 'raw check'], { emu });
    const res = await fetch(`${emu.url}/v1/chat/deferred-completion/${create.stdout.trim()}`, { headers: auth() });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });

  it('state survives a restart of the emulator on the same state dir', async () => {
    const dir = tempDir();
    const a = await startEmulator({ stateDir: dir });
    const rec = a.addKey({ name: 'persisted' });
    await a.close();
    const b = await startEmulator({ stateDir: dir });
    const res = await fetch(`${b.url}/v1/api-key`, { headers: { authorization: `Bearer ${rec.key}` } });
    expect((await res.json()).name).toBe('persisted');
    await b.close();
  });
});
