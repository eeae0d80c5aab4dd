// Hostile client input never takes the emulator down or earns a 500: every route bounds its work and answers
// 400/413/422 like the service (issue 15, items 1 and 3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Router } from '../src/http/router.js';
import { registerAllRoutes } from '../src/routes/index.js';
import { startTestEmulator, type TestEmulator } from 'svc-emulator/testing';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu.close();
});

const post = async (path: string, body: string | Buffer<ArrayBuffer>, headers: Record<string, string> = {}) => {
  const r = await fetch(`${emu.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: r.status, text: await r.text() };
};
const alive = async () => (await fetch(`${emu.url}/_emulator/health`)).status === 200;

describe('emulator hardening: bounded work, client errors are 4xx', () => {
  it(
    'answers null, arrays, scalars and 200,000-deep nesting on every JSON route with 422 (plain text), never ' + '500',
    async () => {
      const router = new Router();
      registerAllRoutes(router);
      const deep = '['.repeat(200_000) + ']'.repeat(200_000);
      const deepObject = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
      const paths = router.routes
        .filter((r) => r.method === 'POST' || r.method === 'PATCH')
        .map((r) => ({
          method: r.method,
          path: r.pattern.source
            .slice(1, -1)
            .replace(/\(\[\^\/\]\+\)/g, 'x1')
            .replace(/\\/g, ''),
        }));
      expect(paths.length).toBeGreaterThan(30);
      const statuses = new Map<number, number>();
      for (const { method, path } of paths) {
        for (const body of ['null', '[]', '"text"', '42', deep, deepObject]) {
          const r = await fetch(`${emu.url}${path}`, {
            method,
            headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
            body,
          });
          const text = await r.text();
          expect(r.status, `${method} ${path} ${body.slice(0, 10)}: ${text.slice(0, 120)}`).toBeLessThan(500);
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        }
      }
      // the JSON routes refuse a non-object body the way the service's deserializer does
      const nul = await post('/v1/chat/completions', 'null');
      expect(nul.status).toBe(422);
      expect(nul.text).toMatch(
        /^Failed to deserialize the JSON body into the target type: invalid type: null, expected a JSON object/,
      );
      const tooDeep = await post('/v1/chat/completions', deep);
      expect(tooDeep.status).toBe(422);
      expect(tooDeep.text).toMatch(/recursion limit exceeded at line 1 column 129/);
      expect(statuses.get(500)).toBeUndefined();
      expect(await alive()).toBe(true);
    },
  );

  it('bounds generated choices (n, prompts × n) and the text a model reads, with 400s naming the limit', async () => {
    const chat = await post(
      '/v1/chat/completions',
      JSON.stringify({ model: 'svc-4', messages: [{ role: 'user', content: 'hi' }], n: 1_000_000_000 }),
    );
    expect(chat.status).toBe(400);
    expect(chat.text).toContain('at most 128');
    const legacy = await post(
      '/v1/completions',
      JSON.stringify({ model: 'svc-3', prompt: Array.from({ length: 100 }, () => 'x'), n: 2 }),
    );
    expect(legacy.status).toBe(400);
    expect(legacy.text).toContain('at most 128');
    // 2 MB of text to tokenize: an over-long prompt, not a stack overflow
    const tok = await post('/v1/tokenize-text', JSON.stringify({ model: 'svc-4', text: 'x'.repeat(2_000_000) }));
    expect(tok.status).toBe(400);
    expect(tok.text).toMatch(/maximum prompt length is \d+ tokens but the text is 2000000 tokens/);
    // and a long run inside the limit tokenizes to bytes that concatenate back to the text
    const ok = await post('/v1/tokenize-text', JSON.stringify({ model: 'svc-4', text: 'y'.repeat(100_000) }));
    expect(ok.status).toBe(200);
    const tokens = (JSON.parse(ok.text) as { token_ids: { token_bytes: number[] }[] }).token_ids;
    expect(Buffer.from(tokens.flatMap((t) => t.token_bytes)).toString()).toBe('y'.repeat(100_000));
    expect(await alive()).toBe(true);
  });

  it('answers a JSON body over 32 MiB with 413', async () => {
    const big = Buffer.alloc(33 * 1024 * 1024, 0x20);
    let status = 0;
    try {
      status = (await post('/v1/embeddings', big)).status;
    } catch {
      // the emulator may close the connection while the client is still sending; it must still be up
    }
    if (status) expect(status).toBe(413);
    expect(await alive()).toBe(true);
  });

  it('survives bad WebSocket messages (null, deep JSON) with an error event on that connection', async () => {
    const ws = new WebSocket(`${emu.wsUrl}/v1/stt?sample_rate=16000&encoding=pcm`, {
      headers: { authorization: `Bearer ${emu.key}` },
    });
    const messages: string[] = [];
    ws.on('message', (d, binary) => {
      if (!binary) messages.push(d.toString());
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.send('null');
    ws.send('['.repeat(100_000));
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (messages.filter((m) => m.includes('error')).length >= 2) {
          clearInterval(t);
          resolve();
        }
      }, 20);
    });
    ws.close();
    expect(messages.some((m) => m.includes('"type":"error"'))).toBe(true);
    expect(await alive()).toBe(true);
  });

  it('refuses a fault that would break every request (bad regular expression) with 400', async () => {
    const r = await fetch(`${emu.url}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'status', status: 503, path: '(' }),
    });
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('path is not a regular expression');
    expect((await fetch(`${emu.url}/v1/models`, { headers: { authorization: `Bearer ${emu.key}` } })).status).toBe(200);
  });
});

describe('emulator admin API off loopback', () => {
  it('needs the admin token for /_emulator/* (health stays open)', async () => {
    const guarded = await startTestEmulator({ adminToken: 'test-admin-token-1234' });
    try {
      const keys = (headers: Record<string, string>) =>
        fetch(`${guarded.url}/_emulator/keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: '{}',
        });
      const refused = await keys({});
      expect(refused.status).toBe(401);
      expect(await refused.text()).toContain('admin token');
      expect((await keys({ authorization: 'Bearer wrong-token-of-same-size' })).status).toBe(401);
      expect((await keys({ authorization: 'Bearer test-admin-token-1234' })).status).toBe(200);
      expect((await keys({ 'x-emulator-admin-token': 'test-admin-token-1234' })).status).toBe(200);
      expect((await fetch(`${guarded.url}/_emulator/health`)).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});
