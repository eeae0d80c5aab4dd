// The emulator as a service in users' CI (issue 15): key and env printed, readiness, fixtures and reset,
// triggers, the request log, faults from the CLI, and the CI recipe of packages/emulator/README.md run as written.
import { createServer } from 'node:http';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verify } from 'svc-formats/webhooks';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { ROOT, tempDir } from '../../helpers/files.js';
import { spawnSvc, svcBinDir, svcShell } from '../../helpers/subprocess.js';
import { svcInProcess, svcUntilStopped } from '../../helpers/in-process.js';

const KEY = 'svc-emulator-local-key-0000000000000000';
const running: ReturnType<typeof spawnSvc>[] = [];
/** emulators served in-process, each stopped (as by Ctrl-C) after its test */
const serving: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) c.kill('SIGKILL');
  for (const stop of serving.splice(0)) await stop();
});

/**
 * `svc emulator serve` in-process until its test ends (the first test runs it as a process: its output, its ready
 * file and SIGTERM); resolves with the URL it prints first.
 */
async function serve(args: string[]): Promise<{ url: string }> {
  const { firstLine, stop } = await svcUntilStopped(['emulator', 'serve', '--port', '0', '--memory', ...args]);
  serving.push(stop);
  return { url: firstLine };
}

const on = (url: string, key: string = KEY) => ({ key, env: { SVC_BASE_URL: url } });

function fixturesFile(): { file: string; dir: string } {
  const dir = tempDir();
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'report.txt'), 'a report from a path\n');
  mkdirSync(join(dir, 'handbook'));
  writeFileSync(join(dir, 'handbook', 'refunds.md'), '# Refunds\n\nRefunds are paid within 14 days of the return.\n');
  const file = join(dir, 'fixtures.yaml');
  writeFileSync(
    file,
    [
      'keys:',
      '  - key: ci-models-only-key-0000000000',
      '    acls: [api-key:endpoint:models, api-key:model:*]',
      'agents:',
      '  - name: front-desk',
      '    instructions: You answer the front desk phone.',
      'phone_numbers:',
      '  - name: main line',
      '    agent: front-desk',
      '    webhook: { url: "http://127.0.0.1:9/", secret: "whsec_a25vd24taW4tY2k=" }',
      'files:',
      '  - filename: notes.txt',
      '    content: "inline text"',
      '  - path: data/report.txt',
      'collections:',
      '  handbook: handbook/',
      '',
    ].join('\n'),
  );
  return { file, dir };
}

describe('svc emulator serve for CI', () => {
  it('prints the key, --print-env lines, and writes/removes the --ready-file', async () => {
    const ready = join(tempDir(), 'svc.env');
    const child = spawnSvc(['emulator', 'serve', '--port', '0', '--memory', '--print-env', '--ready-file', ready], {
      timeout: 60_000,
    });
    running.push(child);
    const out = await new Promise<string>((resolve) => {
      let s = '';
      child.stdout!.on('data', (d: Buffer) => {
        s += d.toString();
        if (s.split('\n').length >= 4) resolve(s);
      });
    });
    expect(out).toMatch(
      /^export SVC_BASE_URL=http:\/\/127\.0\.0\.1:\d+\nexport SVC_API_KEY=svc-emulator-local-key-0000000000000000\n/,
    );
    expect(out).toContain(`\nexport SVC_EMULATOR_PID=${child.pid}\n`);
    // the ready file: the same two variables as NAME=value lines (for `set -a; .` and $GITHUB_ENV)
    expect(
      `${readFileSync(ready, 'utf8')}export SVC_EMULATOR_PID=${child.pid}\n`.replace(/^(?!export )(.)/gm, 'export $1'),
    ).toBe(out);
    const url = /SVC_BASE_URL=(\S+)/.exec(out)![1]!;
    expect((await fetch(`${url}/_emulator/health`)).status).toBe(200);
    child.kill('SIGTERM');
    const r = await child;
    expect(r.exitCode).toBe(143); // stopped cleanly, with the SIGTERM convention of the CLI
    expect(String(r.stderr)).toContain('emulator stopped');
    expect(String(r.stderr)).toContain(`key: ${KEY}`);
    expect(existsSync(ready)).toBe(false);
  });

  it(
    '--fixtures seeds keys with ACLs, agents, numbers, files (inline and from paths) and collections; reset ' +
      'restores them',
    async () => {
      const { file } = fixturesFile();
      const { url } = await serve(['--fixtures', file, '--seed', '5']);
      const files = await svcInProcess(['files', 'list', '--json'], on(url));
      expect(files.exitCode, files.stderr).toBe(0);
      const names = files.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((f) => f.filename)
        .map((f) => f.filename)
        .sort();
      expect(names).toEqual(['notes.txt', 'report.txt']);
      const agents = await svcInProcess(['agents', 'list', '--json'], on(url));
      expect(agents.stdout).toContain('front-desk');
      const search = await svcInProcess(
        ['documents', 'search', 'refunds paid', '--collection', 'handbook', '--json'],
        on(url),
      );
      expect(search.exitCode, search.stderr).toBe(0);
      expect(search.stdout).toContain('14 days');
      // the fixture key reaches models but not chat
      expect((await svcInProcess(['models', 'list'], on(url, 'ci-models-only-key-0000000000'))).exitCode).toBe(0);
      const chat = await svcInProcess(['chat', 'hi'], on(url, 'ci-models-only-key-0000000000'));
      expect(chat.exitCode).toBe(4);
      // change the state, then reset: the fixtures come back and the change is gone
      const up = await svcInProcess(['files', 'upload', join(ROOT, 'package.json')], on(url));
      expect(up.exitCode, up.stderr).toBe(0);
      const reset = await svcInProcess(['emulator', 'reset', '--json'], on(url));
      expect(reset.exitCode, reset.stderr).toBe(0);
      expect(JSON.parse(reset.stdout).fixtures).toEqual({
        keys: 1,
        agents: 1,
        phone_numbers: 1,
        files: 2,
        collections: 1,
      });
      const after = await svcInProcess(['files', 'list', '--json'], on(url));
      const again = after.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((f) => f.filename)
        .map((f) => f.filename)
        .sort();
      expect(again).toEqual(['notes.txt', 'report.txt']);
    },
  );

  it('refuses a fixtures file with an unknown section or a bad entry (exit 2, naming it)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.yaml'), 'widgets: []\n');
    const r = await svcInProcess(['emulator', 'serve', '--memory', '--fixtures', join(dir, 'bad.yaml')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--fixtures: .*unknown section widgets/);
    writeFileSync(
      join(dir, 'bad.json'),
      JSON.stringify({ phone_numbers: [{ api: 'v1', name: 'x', area_code: '12' }] }),
    );
    const r2 = await svcInProcess(['emulator', 'serve', '--memory', '--fixtures', join(dir, 'bad.json')]);
    expect(r2.exitCode).toBe(2);
    expect(r2.stderr).toMatch(/phone_numbers\[0\]: 400 .*area_code/);
  });
});

describe('svc emulator trigger', () => {
  it('incoming-call: delivers the signed webhook (fixture secret) to --webhook, the call is joinable', async () => {
    const { file } = fixturesFile();
    const { url } = await serve(['--fixtures', file]);
    const got: { headers: Record<string, string>; body: Buffer }[] = [];
    const hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) });
        res.end('{}');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (hook.address() as { port: number }).port;
      const r = await svcInProcess(
        ['emulator', 'trigger', 'incoming-call', '--webhook', `http://127.0.0.1:${port}/`, '--from', '+14155550142'],
        on(url),
      );
      expect(r.exitCode, r.stderr).toBe(0);
      const callId = r.stdout.trim();
      expect(callId).toMatch(/^rtc_[0-9a-f]{24}$/);
      expect(r.stderr).toMatch(/webhook delivered to http:\/\/127\.0\.0\.1:\d+\/ \(200\)/);
      expect(got).toHaveLength(1);
      const event = JSON.parse(got[0]!.body.toString());
      expect(event).toMatchObject({ type: 'realtime.call.incoming', data: { call_id: callId } });
      // signed with the secret the fixtures fixed
      expect(() => verify('whsec_a25vd24taW4tY2k=', got[0]!.headers, got[0]!.body)).not.toThrow();
      const calls = (await (await fetch(`${url}/_emulator/calls/${callId}`)).json()) as {
        status: string;
        from: string;
      };
      expect(calls).toMatchObject({ status: 'active', from: '+14155550142' });
    } finally {
      hook.close();
    }
  });

  it('video-done, deferred-ready and file-expired make the event happen now; bad use is exit 2 or 5', async () => {
    const { url } = await serve(['--deferred-delay', '3600000']);
    await fetch(`${url}/_emulator/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ videoDelayMs: 3_600_000 }),
    });
    // video: pending for an hour, done after the trigger
    const made = await fetch(`${url}/v1/videos/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a calm sea' }),
    });
    const video = (await made.json()) as { request_id: string };
    expect((await svcInProcess(['videos', 'get', video.request_id, '--json'], on(url))).stdout).toContain('pending');
    expect((await svcInProcess(['emulator', 'trigger', 'video-done', video.request_id], on(url))).exitCode).toBe(0);
    expect((await svcInProcess(['videos', 'get', video.request_id, '--json'], on(url))).stdout).toContain('"done"');
    // deferred completion: pending (exit 1), ready after the trigger
    const id = (await svcInProcess(['chat', '--deferred', 'later please'], on(url))).stdout.trim();
    expect((await svcInProcess(['chat', 'get', id], on(url))).exitCode).toBe(1);
    expect((await svcInProcess(['emulator', 'trigger', 'deferred-ready', id], on(url))).exitCode).toBe(0);
    const done = await svcInProcess(['chat', 'get', id], on(url));
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stdout).toContain('later please');
    // file: gone (404, exit 5) once expired
    const dir = tempDir();
    writeFileSync(join(dir, 'short.txt'), 'short lived');
    const file = JSON.parse(
      (await svcInProcess(['files', 'upload', join(dir, 'short.txt'), '--json'], on(url))).stdout,
    ) as { id: string };
    expect((await svcInProcess(['files', 'get', file.id], on(url))).exitCode).toBe(0);
    expect((await svcInProcess(['emulator', 'trigger', 'file-expired', file.id], on(url))).exitCode).toBe(0);
    expect((await svcInProcess(['files', 'get', file.id], on(url))).exitCode).toBe(5);
    // unknown id → 404 → exit 5; missing id and unknown event → exit 2, nothing sent
    expect((await svcInProcess(['emulator', 'trigger', 'file-expired', 'file_nope'], on(url))).exitCode).toBe(5);
    const noId = await svcInProcess(['emulator', 'trigger', 'video-done'], on(url));
    expect(noId.exitCode).toBe(2);
    expect(noId.stderr).toContain('id');
    expect((await svcInProcess(['emulator', 'trigger', 'earthquake'], on(url))).exitCode).toBe(2);
  });
});

describe('svc emulator requests and fault', () => {
  it('prints the request log with filters (keys redacted), --json, and --follow until Ctrl-C', async () => {
    const { url } = await serve([]);
    await svcInProcess(['models', 'list'], on(url));
    await svcInProcess(['chat', 'hi', '-m', 'nope'], on(url));
    const all = await svcInProcess(['emulator', 'requests'], on(url));
    expect(all.exitCode).toBe(0);
    const rows = all.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows).toHaveLength(2);
    expect(rows[0]!.slice(1, 4)).toEqual(['GET', rows[0]![2], '200']);
    expect(rows[0]![2]).toMatch(/^\/v1\/.*models/);
    expect(rows[1]!.slice(1, 4)).toEqual(['POST', '/v1/chat/completions', '404']);
    expect(rows[1]![6]).toMatch(/^[0-9a-f-]{36}$/);
    const only4xx = await svcInProcess(['emulator', 'requests', '--status', '4xx', '--json'], on(url));
    const lines = only4xx.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.length).toBe(1);
    expect(lines[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', status: 404 });
    expect(lines[0].headers.authorization).toBe('[present]');
    expect(typeof lines[0].duration_ms).toBe('number');
    expect(lines[0].bytes).toBeGreaterThan(0);
    expect(only4xx.stdout).not.toContain(KEY);
    const byPath = await svcInProcess(['emulator', 'requests', '--path', '^/v1/chat', '--json'], on(url));
    expect(byPath.stdout.trim().split('\n')).toHaveLength(1);
    expect((await svcInProcess(['emulator', 'requests', '--status', '42'], on(url))).exitCode).toBe(2);

    // --follow: prints what arrives after it started, until Ctrl-C
    const follow = spawnSvc(['emulator', 'requests', '--follow', '--path', '^/v1/me$', '--interval', '50'], on(url));
    running.push(follow);
    let out = '';
    follow.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((r) => setTimeout(r, 300));
    expect((await svcInProcess(['whoami'], on(url))).exitCode).toBe(0);
    while (!out.includes('/v1/me')) await new Promise((r) => setTimeout(r, 50));
    follow.kill('SIGINT');
    const f = await follow;
    expect(f.exitCode).toBe(130);
    expect(out.trim().split('\n')).toHaveLength(1);
    expect(out).toMatch(/\tGET\t\/v1\/me\t200\t/);
  });

  it('fault add/list/clear on a running emulator: 429 with Retry-After twice, then success', async () => {
    const { url } = await serve([]);
    const add = await svcInProcess(
      ['emulator', 'fault', 'add', '429:retry-after=0:times=2', '--path', '^/v1/me$'],
      on(url),
    );
    expect(add.exitCode, add.stderr).toBe(0);
    const list = await svcInProcess(['emulator', 'fault', 'list', '--json'], on(url));
    expect(JSON.parse(list.stdout.trim())).toMatchObject({
      kind: 'status',
      status: 429,
      retryAfter: '0',
      path: '^/v1/me$',
      left: 2,
    });
    // no retries: the first two calls meet the fault (exit 6), the third passes
    expect((await svcInProcess(['whoami', '--max-retries', '0'], on(url))).exitCode).toBe(6);
    expect((await svcInProcess(['whoami', '--max-retries', '0'], on(url))).exitCode).toBe(6);
    expect((await svcInProcess(['whoami', '--max-retries', '0'], on(url))).exitCode).toBe(0);
    // with svc's own retries a 429 is absorbed
    await svcInProcess(['emulator', 'fault', 'add', '429', '--times', '2', '--path', '^/v1/me$'], on(url));
    expect((await svcInProcess(['whoami'], on(url))).exitCode).toBe(0);
    await svcInProcess(['emulator', 'fault', 'add', '503:times=5'], on(url));
    expect((await svcInProcess(['emulator', 'fault', 'clear'], on(url))).exitCode).toBe(0);
    expect((await svcInProcess(['emulator', 'fault', 'list', '--json'], on(url))).stdout).toBe('');
    expect((await svcInProcess(['whoami'], on(url))).exitCode).toBe(0);
    const bad = await svcInProcess(['emulator', 'fault', 'add', 'sometimes'], on(url));
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/STATUS\[:retry-after=S\]/);
    expect((await svcInProcess(['emulator', 'fault', 'add', '500', '--path', '('], on(url))).exitCode).toBe(2);
  });
});

describe('the CI recipe of packages/emulator/README.md', () => {
  const recipe = (() => {
    const doc = readFileSync(join(ROOT, 'packages', 'emulator', 'README.md'), 'utf8');
    const m = /### A CI recipe[\s\S]*?```bash\n([\s\S]*?)```/.exec(doc);
    return m![1]!;
  })();

  async function runRecipe(userTests: string) {
    const work = tempDir();
    mkdirSync(join(work, 'ci'));
    writeFileSync(
      join(work, 'ci', 'svc-fixtures.yaml'),
      'files:\n  - filename: seeded.txt\n    content: "from the fixtures"\n',
    );
    writeFileSync(join(work, 'run-my-tests.sh'), `#!/bin/sh\nset -e\n${userTests}\n`);
    chmodSync(join(work, 'run-my-tests.sh'), 0o755);
    // `svc` as a user has it: an executable on PATH
    const bin = svcBinDir();
    const runnerTemp = tempDir();
    const r = await svcShell(`unset -f svc\nexport PATH=${bin}:$PATH\n${recipe}`, {
      cwd: work,
      env: { RUNNER_TEMP: runnerTemp, SVC_BASE_URL: undefined, SVC_API_KEY: undefined },
      key: null,
      timeout: 90_000,
    });
    return { ...r, runnerTemp };
  }

  it('passing tests: the recipe exits 0, the tests saw the fixtures, and the emulator is stopped', async () => {
    const r = await runRecipe(
      'svc files list | grep -q seeded.txt\nsvc chat --no-stream "hello from CI" | grep -q "hello from CI"',
    );
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(join(r.runnerTemp, 'svc-emulator.log'), 'utf8')).toContain('svc emulator listening on');
    // the trap stopped it: the ready file is removed on exit
    for (let i = 0; i < 100 && existsSync(join(r.runnerTemp, 'svc.env')); i++)
      await new Promise((res) => setTimeout(res, 50));
    expect(existsSync(join(r.runnerTemp, 'svc.env'))).toBe(false);
  });

  it('--strict in the recipe: a field the API document does not describe fails the tests (400 naming it)', async () => {
    const body = '{"model":"svc-4","messages":[{"role":"user","content":"x"}],"temprature":1}';
    // without --strict this request is answered 200 (with a warning header) and the tests pass
    const r = await runRecipe(
      `curl -sf -o /dev/null -H "authorization: Bearer $SVC_API_KEY" -H 'content-type: application/json' ` +
        `-d '${body}' "$SVC_BASE_URL/v1/chat/completions"`,
    );
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/\tPOST\t\/v1\/chat\/completions\t400\t/);
  });

  it('failing tests: the recipe exits 1 and prints the request log', async () => {
    const r = await runRecipe('svc files list >/dev/null\nsvc files get file_missing');
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/\tGET\t\/v1\/files\t200\t/);
    expect(r.stdout).toMatch(/\tGET\t\/v1\/files\/file_missing\t404\t/);
  });
});
