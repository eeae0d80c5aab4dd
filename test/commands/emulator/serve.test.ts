import { afterEach, describe, expect, it } from 'vitest';
import { spawnSvc } from '../../helpers/subprocess.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { readApiDocument } from '../../helpers/api-document.js';
import { tempDir } from '../../helpers/files.js';
import { DEFAULT_EMULATOR_KEY } from 'svc-emulator/auth';

// the helpers register this key as a secret: no output of these runs may show it
const DEFAULT_KEY = DEFAULT_EMULATOR_KEY;

async function serve(args: string[]) {
  const state = tempDir();
  const child = spawnSvc(['emulator', 'serve', '--port', '0', '--state-dir', state, ...args]);
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', () => reject(new Error('serve exited early')));
  });
  return { child, url, state };
}

let running: ReturnType<typeof spawnSvc> | undefined;
afterEach(() => {
  running?.kill('SIGKILL');
});

describe('svc emulator serve', () => {
  it(
    'prints its URL on stdout, serves the API and its document at /openapi.json, stops cleanly on SIGINT, and ' +
      'keeps state on disk',
    async () => {
      const { child, url, state } = await serve([]);
      running = child;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // the API document, for the user's own tools (no key needed): the one in the repository, from the bundle
      const doc = await fetch(`${url}/openapi.json`);
      expect(doc.status).toBe(200);
      expect(await doc.json()).toEqual(readApiDocument());
      const id = (
        await svcInProcess(['chat', '--deferred', 'kept on disk'], { key: DEFAULT_KEY, env: { SVC_BASE_URL: url } })
      ).stdout.trim();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      child.kill('SIGINT');
      const r = await child;
      expect(r.exitCode).toBe(0);
      expect(String(r.stderr)).toMatch(/svc emulator listening on http:\/\/127\.0\.0\.1:\d+/);
      expect(String(r.stderr)).toMatch(/emulator stopped/);

      // a new server on the same state dir still knows the deferred request
      const again = spawnSvc(['emulator', 'serve', '--port', '0', '--state-dir', state]);
      running = again;
      const url2 = await new Promise<string>((resolve) =>
        again.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())),
      );
      const got = await svcInProcess(['chat', 'get', id, '--wait'], { key: DEFAULT_KEY, env: { SVC_BASE_URL: url2 } });
      expect(got.exitCode).toBe(0);
      expect(got.stdout).toMatch(/kept on disk/);
      again.kill('SIGINT');
      await again;
    },
  );

  it('injects faults given with --fault and a token delay', async () => {
    const { child, url } = await serve(['--fault', '503:path=^/v1/me$:times=3', '--token-delay', '1']);
    running = child;
    const r = await svcInProcess(['whoami', '--max-retries', '1'], { key: DEFAULT_KEY, env: { SVC_BASE_URL: url } });
    expect(r.exitCode).toBe(7);
    const ok = await svcInProcess(['whoami'], { key: DEFAULT_KEY, env: { SVC_BASE_URL: url } });
    expect(ok.exitCode).toBe(0);
    child.kill('SIGINT');
    await child;
  });

  it('off loopback: warns on stderr and guards the admin API with a token it prints', async () => {
    const { child, url } = await serve(['--host', '0.0.0.0']);
    running = child;
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const port = new URL(url).port;
    const local = `http://127.0.0.1:${port}`;
    while (!/admin token: [0-9a-f]{48}/.test(stderr)) await new Promise((r) => setTimeout(r, 20));
    const token = /admin token: ([0-9a-f]{48})/.exec(stderr)![1]!;
    expect(stderr).toMatch(/warning: listening on 0\.0\.0\.0: .*reachable from the network/);
    expect(
      (
        await fetch(`${local}/_emulator/keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(401);
    expect((await fetch(`${local}/_emulator/requests`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    child.kill('SIGINT');
    await child;
  });

  it('rejects a malformed --fault before starting', async () => {
    const r = await svcInProcess(['emulator', 'serve', '--fault', 'sometimes']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--fault: sometimes .*STATUS\[:retry-after=S\]/);
  });
});

describe('svc emulator serve --strict', () => {
  it('refuses a body field the API document does not describe, naming it; without it the reply warns', async () => {
    const call = (url: string) =>
      fetch(`${url}/v1/tokenize-text`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEFAULT_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'hi', model: 'svc-4', txet: 'typo' }),
      });
    const strict = await serve(['--strict']);
    running = strict.child;
    const refused = await call(strict.url);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(/^Unknown field `txet`/);
    strict.child.kill('SIGKILL');
    const lenient = await serve([]);
    running = lenient.child;
    const noted = await call(lenient.url);
    expect(noted.status).toBe(200);
    expect(noted.headers.get('x-emulator-warning')).toBe('unknown field ignored: txet');
  });
});
