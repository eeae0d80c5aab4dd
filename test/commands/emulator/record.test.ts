// svc emulator record and svc emulator serve --replay, end to end (issue 39, part 3): a seeded emulator is the
// upstream; svc records a chat stream, a file upload and download, a TTS WebSocket session and a realtime session
// through the recorder; a second emulator replays the fixture with --replay-strict --pace 0 and the same commands
// print the same bytes. The fixture and its files hold no key and no Authorization.
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EMULATOR_KEY } from 'svc-emulator/auth';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess, type InProcessOptions } from '../../helpers/in-process.js';
import { ROOT, tempDir } from '../../helpers/files.js';
import { svcBinDir, svcShell } from '../../helpers/subprocess.js';
import { fastEmulator, questionClip } from '../realtime/talk-helpers.js';

/** A command that runs until stopped, with everything it printed on stdout at hand. */
async function untilStopped(args: string[], opts: InProcessOptions = {}) {
  const abort = new AbortController();
  let printed = '';
  let ready: () => void = () => {};
  const started = new Promise<void>((r) => (ready = r));
  const run = svcInProcess(args, {
    ...opts,
    signal: abort.signal,
    onStdout: (text) => {
      printed += text;
      if (/SVC_API_KEY=\S+\n/.test(printed)) ready();
    },
  });
  await Promise.race([started, run.then((r) => Promise.reject(new Error(`ended early: ${r.stderr}`)))]);
  const env = Object.fromEntries([...printed.matchAll(/export (\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
  return { env, stop: () => (abort.abort(), run) };
}

interface Session {
  name: string;
  args: (dir: string) => string[];
  input?: string;
  /** files the command writes, compared byte for byte too */
  files?: string[];
}

let dir: string;
let upstream: TestEmulator;
let question: string;
let uploaded: string;
let hello: string;
beforeAll(async () => {
  upstream = await startTestEmulator({ seed: 7 });
  fastEmulator(upstream);
  dir = tempDir('svc-record-');
  question = questionClip();
  uploaded = join(dir, 'notes.txt');
  writeFileSync(uploaded, 'lighthouse keepers log\n'.repeat(40));
  hello = join(dir, 'hello.wav');
  expect((await svcInProcess(['tts', 'say', 'hello world', '-o', hello], { emu: upstream })).exitCode).toBe(0);
  upstream.clearRequests();
});
afterAll(() => upstream.close());

const SESSIONS: Session[] = [
  { name: 'a chat stream', args: () => ['chat', 'tell me about lighthouses'] },
  { name: 'a file upload', args: () => ['files', 'upload', uploaded, '--purpose', 'assistants', '--json'] },
  { name: 'the files list', args: () => ['files', 'list'] },
  {
    name: 'a TTS WebSocket session',
    args: (d) => ['tts', 'stream', '-o', join(d, 'speech.wav'), '--voice', 'rex'],
    input: 'first one\n\nsecond one\n',
    files: ['speech.wav'],
  },
  { name: 'an STT WebSocket session', args: () => ['stt', 'listen', '--input', hello, '--no-realtime'] },
  {
    name: 'a realtime session',
    args: (d) => ['realtime', 'talk', '--input', question, '--output', join(d, 'answer.wav')],
    files: ['answer.wav'],
  },
];

/** Runs every session against `env`'s server, into `out`; each one's stdout, exit code and files. */
async function runAll(env: Record<string, string>, out: string) {
  const results: Record<string, string | number>[] = [];
  const opts = { key: env.SVC_API_KEY!, env: { SVC_BASE_URL: env.SVC_BASE_URL! } };
  for (const s of SESSIONS) {
    const r = await svcInProcess(s.args(out), { ...opts, input: s.input });
    expect(r.exitCode, `${s.name}: ${r.stderr}`).toBe(0);
    const files = Object.fromEntries((s.files ?? []).map((f) => [f, readFileSync(join(out, f)).toString('base64')]));
    results.push({ name: s.name, stdout: r.stdout, ...files });
  }
  // the uploaded file's content, by the id the upload printed
  const id = JSON.parse(String(results[1]!.stdout)).id as string;
  const download = await svcInProcess(['files', 'download', id, '-o', '-'], opts);
  expect(download.exitCode, download.stderr).toBe(0);
  results.push({ name: 'a file download', stdout: download.stdout });
  return results;
}

describe('svc emulator record, then svc emulator serve --replay', () => {
  let fixture: string;
  let recorded: Awaited<ReturnType<typeof runAll>>;

  it('records every transport through the recorder, with no key and no Authorization in the fixture', async () => {
    fixture = join(dir, 'session.json');
    const rec = await untilStopped(
      ['emulator', 'record', '--upstream', upstream.url, '--out', fixture, '--print-env'],
      {
        emu: upstream,
      },
    );
    expect(rec.env.SVC_API_KEY).toMatch(/^svc-rec-/);
    recorded = await runAll(rec.env, tempDir('svc-recorded-'));
    const stopped = await rec.stop();
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(stopped.stderr).toMatch(/recorded 7 exchange\(s\) in /);
    // every request reached the upstream with the user's key (the recorder's own key stayed local)
    const upstreamCalls = upstream.requests().filter((q) => q.path.startsWith('/v1/'));
    expect(upstreamCalls.map((q) => `${q.method} ${q.path}`)).toEqual([
      'POST /v1/chat/completions',
      'POST /v1/files',
      'GET /v1/files',
      'WS /v1/tts',
      'WS /v1/stt',
      'WS /v1/realtime',
      `GET /v1/files/${JSON.parse(String(recorded[1]!.stdout)).id}/content`,
    ]);

    const doc = JSON.parse(readFileSync(fixture, 'utf8'));
    expect(doc.version).toBe(1);
    expect(doc.exchanges.map((e: { kind: string }) => e.kind)).toEqual([
      'http',
      'http',
      'http',
      'websocket',
      'websocket',
      'websocket',
      'http',
    ]);
    const audioDir = join(dir, 'session.audio');
    const everything = [
      readFileSync(fixture, 'utf8'),
      ...readdirSync(audioDir).map((f) => readFileSync(join(audioDir, f)).toString('latin1')),
    ].join('\n');
    for (const secret of [upstream.key, rec.env.SVC_API_KEY!, 'Bearer '])
      expect(everything.includes(secret), `the fixture holds ${secret}`).toBe(false);
    expect(everything).not.toMatch(/authorization/i);
    // audio is kept as files beside the fixture: the TTS session's, the STT session's and the realtime session's
    expect(readdirSync(audioDir).sort()).toEqual([
      '4-server.audio',
      '5-client.bin',
      '6-client.audio',
      '6-server.audio',
      '7-reply.bin',
    ]);
  });

  it('replays them (--replay-strict --pace 0): every output byte-identical; an unrecorded request is 404', async () => {
    const emu = await untilStopped([
      'emulator',
      'serve',
      '--memory',
      '--print-env',
      '--replay',
      fixture,
      '--replay-strict',
      '--pace',
      '0',
    ]);
    try {
      expect(emu.env.SVC_API_KEY).toBe(DEFAULT_EMULATOR_KEY);
      const replayed = await runAll(emu.env, tempDir('svc-replayed-'));
      expect(replayed).toEqual(recorded);
      const other = await svcInProcess(['chat', 'tell me about ships'], {
        key: emu.env.SVC_API_KEY!,
        env: { SVC_BASE_URL: emu.env.SVC_BASE_URL! },
      });
      expect(other.exitCode).toBe(5);
      expect(other.stderr).toMatch(
        /No recording matches POST \/v1\/chat\/completions; the closest is #1 POST \/v1\/chat\/completions, which differs in body messages/,
      );
    } finally {
      await emu.stop();
    }
  });
});

describe('the --replay CI recipe of packages/emulator/README.md, run as written', () => {
  const recipe = (() => {
    const doc = readFileSync(join(ROOT, 'packages', 'emulator', 'README.md'), 'utf8');
    return /### A CI recipe with `--replay`[\s\S]*?```bash\n([\s\S]*?)```/.exec(doc)![1]!;
  })();

  /** The recipe in a project holding the fixture recorded above (ci/session.json and ci/session.audio/). */
  async function runRecipe(userTests: string) {
    const work = tempDir();
    cpSync(join(dir, 'session.json'), join(work, 'ci', 'session.json'));
    cpSync(join(dir, 'session.audio'), join(work, 'ci', 'session.audio'), { recursive: true });
    writeFileSync(join(work, 'run-my-tests.sh'), `#!/bin/sh\nset -e\n${userTests}\n`, { mode: 0o755 });
    return svcShell(`unset -f svc\nexport PATH=${svcBinDir()}:$PATH\n${recipe}`, {
      cwd: work,
      env: { RUNNER_TEMP: tempDir(), SVC_BASE_URL: undefined, SVC_API_KEY: undefined },
      key: null,
      timeout: 90_000,
    });
  }

  it('a recorded request passes; one the recording lacks fails the job with the 404 in the request log', async () => {
    const passing = await runRecipe(`svc chat 'tell me about lighthouses' | grep -q "${recordedChatWord()}"`);
    expect(passing.exitCode, passing.stdout + passing.stderr).toBe(0);
    const failing = await runRecipe(`svc chat 'tell me about ships'`);
    expect(failing.exitCode).toBe(1);
    expect(failing.stderr).toMatch(/No recording matches POST \/v1\/chat\/completions; the closest is #1/);
    expect(failing.stdout).toMatch(/\tPOST\t\/v1\/chat\/completions\t404\t/);
  });
});

/** A word of the chat answer recorded (the replay must give that answer, not one of its own). */
function recordedChatWord(): string {
  const doc = JSON.parse(readFileSync(join(dir, 'session.json'), 'utf8'));
  const text = doc.exchanges[0].reply.body.map((p: { data: { text: string } }) => p.data.text).join('');
  const content = [...text.matchAll(/"content":"([^"]*)"/g)].map((m) => m[1]).join('');
  return content.split(/\s+/).find((w: string) => /^[a-z]{6,}$/.test(w))!;
}

describe('svc emulator record and serve --replay: usage (exit 2, nothing sent)', () => {
  it('refuses http:// upstream off loopback, an existing fixture without --force, replay flags alone', async () => {
    upstream.clearRequests();
    const insecure = await svcInProcess(['emulator', 'record', '--upstream', 'http://api.example.com'], {
      emu: upstream,
    });
    expect(insecure.exitCode).toBe(2);
    expect(insecure.stderr).toMatch(
      /--upstream: http:\/\/api\.example\.com is not allowed: plain http:\/\/ would send/,
    );
    const existing = join(dir, 'existing.json');
    writeFileSync(existing, '{}');
    const kept = await svcInProcess(['emulator', 'record', '--upstream', upstream.url, '--out', existing], {
      emu: upstream,
    });
    expect(kept.exitCode).toBe(2);
    expect(kept.stderr).toMatch(/--out/);
    expect(readFileSync(existing, 'utf8')).toBe('{}');
    expect(upstream.requests()).toEqual([]);

    const pace = await svcInProcess(['emulator', 'serve', '--memory', '--replay', existing, '--pace', '101']);
    expect(pace.exitCode).toBe(2);
    expect(pace.stderr).toMatch(/--pace.*101/);
    const alone = await svcInProcess(['emulator', 'serve', '--memory', '--replay-strict']);
    expect(alone.exitCode).toBe(2);
    expect(alone.stderr).toMatch(/--replay-strict needs --replay FILE/);
    const old = await svcInProcess(['emulator', 'serve', '--memory', '--replay', existing]);
    expect(old.exitCode).toBe(2);
    expect(old.stderr).toMatch(
      /--replay .*existing\.json: version undefined is not supported \(this emulator reads version 1\)/,
    );
  });
});
