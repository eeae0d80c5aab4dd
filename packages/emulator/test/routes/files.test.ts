// POST /v1/files as the OpenAI SDK sends it (issue 39 part 2): the lifetime in the deep-object form
// `expires_after[anchor]=created_at` + `expires_after[seconds]=N` (the SDK's multipart serialisation of
// `expires_after: {anchor, seconds}`), the exact parts on the wire, gives the file its expiry like `expires_after=N`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from 'svc-emulator/testing';

let strict: TestEmulator;
beforeAll(async () => {
  strict = await startTestEmulator({ strict: true });
});
afterAll(() => strict.close());

async function upload(fields: [string, string][]) {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  form.append('file', new Blob(['hello']), 'a.txt');
  const res = await fetch(`${strict.url}/v1/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${strict.key}` },
    body: form,
  });
  return { status: res.status, warning: res.headers.get('x-emulator-warning'), body: (await res.json()) as any };
}

describe('file upload: expires_after in the deep-object form', () => {
  it('expires_after[anchor]=created_at and expires_after[seconds] give the file its expiry (strict)', async () => {
    const r = await upload([
      ['purpose', 'assistants'],
      ['expires_after[anchor]', 'created_at'],
      ['expires_after[seconds]', '7200'],
    ]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.warning).toBeNull();
    expect(r.body.expires_at - r.body.created_at).toBe(7200);
    const got = await fetch(`${strict.url}/v1/files/${r.body.id}`, {
      headers: { authorization: `Bearer ${strict.key}` },
    });
    expect(((await got.json()) as { expires_at: number }).expires_at).toBe(r.body.expires_at);
  });

  it('the same as expires_after=N', async () => {
    const r = await upload([['expires_after', '7200']]);
    expect(r.body.expires_at - r.body.created_at).toBe(7200);
  });

  it('refuses a half, an unknown anchor, seconds out of range and both forms at once, naming the part', async () => {
    const cases: [[string, string][], string][] = [
      [[['expires_after[seconds]', '7200']], 'Missing `expires_after[anchor]`: the deep-object form takes both'],
      [[['expires_after[anchor]', 'created_at']], 'Missing `expires_after[seconds]`: the deep-object form takes both'],
      [
        [
          ['expires_after[anchor]', 'last_active_at'],
          ['expires_after[seconds]', '7200'],
        ],
        'Invalid value for `expires_after[anchor]`: "last_active_at"; must be one of created_at',
      ],
      [
        [
          ['expires_after[anchor]', 'created_at'],
          ['expires_after[seconds]', '60'],
        ],
        'Invalid value for `expires_after[seconds]`: 60; must be an integer at least 3600 and at most 2592000',
      ],
      [
        [
          ['expires_after', '7200'],
          ['expires_after[anchor]', 'created_at'],
          ['expires_after[seconds]', '7200'],
        ],
        'Give `expires_after` or its deep-object form `expires_after[anchor]` and `expires_after[seconds]`, not both',
      ],
    ];
    for (const [fields, error] of cases) {
      const r = await upload(fields);
      expect([r.status, r.body.error]).toEqual([400, error]);
    }
    const none = await fetch(`${strict.url}/v1/files`, { headers: { authorization: `Bearer ${strict.key}` } });
    expect(((await none.json()) as { data: unknown[] }).data.length).toBe(2);
  });
});
