// Trust under faults, beyond the matrix: --timeout bounds every WebSocket command's wait on a silent server;
// server text is neutralised on a real terminal and byte-exact in a pipe; exit codes and checks of issue 9
// (missing key, environment variables, ids, deep JSON, plain http off loopback, piped REPL, config folder).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { registerSecret } from './helpers/secrets.js';
import { startTestEmulator, type TestEmulator } from './helpers/emulator.js';
import { svcInProcess } from './helpers/in-process.js';
import { svcOnTerminal } from './helpers/terminal.js';
import { tempDir } from './helpers/files.js';
import { HostileServer } from './helpers/hostile-server.js';

const KEY = 'svc-hostile-faults-key-0123456789';
registerSecret(KEY);
const wav = join(tempDir('svc-faults-in-'), 'in.wav');
beforeAll(() => {
  execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', wav, 'synth', '0.4', 'sine', '440']);
});

describe('--timeout bounds the wait of every WebSocket command on a silent server', () => {
  // (outputs named by absolute paths: the commands run concurrently in this process, in no folder of their own)
  const commands: [string, string, (dir: string) => string[], string?][] = [
    ['tts say', '/v1/tts', (dir) => ['tts', 'say', 'hello', '-o', join(dir, 'out.pcm')]],
    ['tts stream', '/v1/tts', (dir) => ['tts', 'stream', '-o', join(dir, 'out.pcm')], 'one line of text\n\n'],
    ['stt listen', '/v1/stt', () => ['stt', 'listen', '--input', wav, '--no-realtime']],
    ['realtime talk', '/v1/realtime', (dir) => ['realtime', 'talk', '--input', wav, '--output', join(dir, 'out.wav')]],
    ['calls join', '/v1/realtime', () => ['calls', 'join', 'rtc_silent1']],
  ];
  it.concurrent.each(commands)(
    '%s: the handshake succeeds, then nothing → exit 1 after --timeout',
    async (_name, route, args, input) => {
      const server = await HostileServer.start();
      try {
        server.plan(`WS ${route}`, 'silent');
        const dir = tempDir('svc-silent-');
        const r = await svcInProcess(['--timeout', '1', ...args(dir)], {
          env: { SVC_BASE_URL: server.url, SVC_API_KEY: KEY },
          input,
        });
        expect(r.exitCode, r.stderr).toBe(1);
        expect(r.stderr).toMatch(/the server sent nothing for 1 s \(--timeout 1\)/);
        // the WebSocket was open (the wait was after the handshake), and nobody claimed to be connected
        expect(server.hits.map((h) => h.route)).toEqual([`WS ${route}`]);
        expect(r.stderr).not.toMatch(/connected/);
      } finally {
        await server.close();
      }
    },
  );
});

describe('server text on a terminal', () => {
  const ESC = '\u001b';
  // title change, clear screen, an OSC 8 link, a C1 CSI
  const HOSTILE = [
    `Hi${ESC}]0;pwned${ESC}\\`,
    `${ESC}[2J${ESC}[H`,
    `${ESC}]8;;http://evil${ESC}\\link`,
    '\u009b31m',
    ' end',
  ];
  const raw = /\u001b\]|\u001b\[2J|\u009b/;
  let server: HostileServer;
  beforeAll(async () => {
    server = await HostileServer.start();
    server.answer = HOSTILE;
    server.errorMessage = `denied${ESC}]0;owned${ESC}\\${ESC}[2J`;
  });
  afterAll(() => server.close());
  const env = () => ({ SVC_BASE_URL: server.url, SVC_API_KEY: KEY });

  const cases: [string, string[], () => void, RegExp][] = [
    [
      'chat output (streamed)',
      ['chat', 'hi'],
      () => {},
      /Hi␛]0;pwned␛\\␛\[2J␛\[H␛]8;;http:\/\/evil␛\\link\ufffd31m end/,
    ],
    [
      'an error message',
      ['chat', 'hi'],
      () => server.plan('POST /v1/chat/completions', { status: 400 }),
      /error: denied␛]0;owned␛\\␛\[2J/,
    ],
    ['table cells', ['models', 'list'], () => {}, /Hi␛]0;pwned␛\\␛\[2J␛\[H/],
    [
      'a transcript (stt listen)',
      ['stt', 'listen', '--input', wav, '--no-realtime'],
      () => {},
      /␛\[2J␛\[H␛]8;;http:\/\/evil␛\\link/,
    ],
    [
      'a transcript (realtime talk)',
      // -q: no status line redrawn between the transcript's pieces (svc's own escapes; talk-status.test.ts has it)
      ['-q', 'realtime', 'talk', '--input', wav, '--output', join(tempDir('svc-tty-'), 'o.wav'), '--force'],
      () => {},
      /assistant: Hi␛]0;pwned/,
    ],
  ];
  for (const [what, args, plan, shown] of cases) {
    it(`${what}: neutralised on a pseudo-terminal, byte-exact in a pipe`, async () => {
      plan();
      const tty = await svcOnTerminal(args, { env: env(), cols: 400, timeout: 60_000 });
      expect(tty.screen).toMatch(shown);
      expect(tty.screen).not.toMatch(raw);
      plan();
      const pipe = await svcInProcess(args, { env: env() });
      const text = pipe.stdout + pipe.stderr;
      // in a pipe the server's bytes arrive as they were sent (the error line goes to stderr, a pipe too)
      if (what === 'an error message') expect(pipe.stderr).toContain(server.errorMessage);
      else if (what === 'table cells') expect(pipe.stdout).toContain(HOSTILE.join('').replace(/\s/g, '-'));
      else if (what.startsWith('a transcript (stt')) expect(text).toContain(HOSTILE.slice(1).join('').trim());
      else expect(pipe.stdout).toContain(HOSTILE.join(''));
    });
  }

  it('--json stays parseable and exact on a terminal: C1 escaped, the value unchanged', async () => {
    const tty = await svcOnTerminal(['chat', '--no-stream', '--json', 'hi'], {
      env: env(),
      cols: 400,
      timeout: 60_000,
    });
    expect(tty.screen).not.toMatch(raw);
    expect(tty.screen).toContain('\\u009b31m');
    const pipe = await svcInProcess(['chat', '--no-stream', '--json', 'hi'], { env: env() });
    expect(JSON.parse(pipe.stdout).choices[0].message.content).toBe(HOSTILE.join(''));
  });
});

describe('bidirectional overrides in server text (issue 25, item 4)', () => {
  // an answer, a table cell and an error message that would read in another order than they are
  const BIDI = ['Pay ', 'invoice\u202Egnp.exe', ' \u2066now\u2069'];
  let server: HostileServer;
  beforeAll(async () => {
    server = await HostileServer.start();
    server.answer = BIDI;
    server.errorMessage = 'denied \u202Edrowssap';
  });
  afterAll(() => server.close());
  const env = () => ({ SVC_BASE_URL: server.url, SVC_API_KEY: KEY });
  const raw = /[\u202a-\u202e\u2066-\u2069]/;

  for (const [what, args, plan, shown] of [
    ['chat output (streamed)', ['chat', 'hi'], () => {}, /Pay invoice<U\+202E>gnp\.exe <U\+2066>now<U\+2069>/],
    ['table cells', ['models', 'list'], () => {}, /Pay-invoice<U\+202E>gnp\.exe-<U\+2066>now<U\+2069>/],
    [
      'an error message',
      ['chat', 'hi'],
      () => server.plan('POST /v1/chat/completions', { status: 400 }),
      /error: denied <U\+202E>drowssap/,
    ],
  ] as const) {
    it(`${what}: shown as code points on a terminal, byte-exact in a pipe`, async () => {
      plan();
      const tty = await svcOnTerminal([...args], { env: env(), cols: 400, timeout: 60_000 });
      expect(tty.screen).toMatch(shown);
      expect(tty.screen).not.toMatch(raw);
      plan();
      const pipe = await svcInProcess([...args], { env: env(), timeout: 60_000 });
      expect(pipe.stdout + pipe.stderr).toMatch(raw);
    });
  }

  it('--json on a terminal escapes them (\\u202e): the same value once parsed', async () => {
    const tty = await svcOnTerminal(['chat', '--no-stream', '--json', 'hi'], { env: env(), cols: 400 });
    expect(tty.screen).not.toMatch(raw);
    expect(tty.screen).toContain('invoice\\u202egnp.exe');
    const pipe = await svcInProcess(['chat', '--no-stream', '--json', 'hi'], { env: env() });
    expect(JSON.parse(pipe.stdout).choices[0].message.content).toBe(BIDI.join(''));
  });
});

describe('exit codes and checks before sending', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => emu.close());

  it('no API key is exit 4 (as README and auth status say)', async () => {
    const r = await svcInProcess(['models', 'list'], { emu, key: null });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/no API key/);
  });

  it('SVC_TIMEOUT and SVC_MAX_RETRIES are checked like their flags (exit 2, nothing sent)', async () => {
    emu.clearRequests();
    const t = await svcInProcess(['models', 'list'], { emu, env: { SVC_TIMEOUT: 'abc' } });
    expect(t.exitCode).toBe(2);
    expect(t.stderr).toMatch(/SVC_TIMEOUT: abc is not allowed: a number greater than 0 and at most 86400/);
    const m = await svcInProcess(['models', 'list'], { emu, env: { SVC_MAX_RETRIES: '1e9' } });
    expect(m.exitCode).toBe(2);
    expect(m.stderr).toMatch(/SVC_MAX_RETRIES: 1e9 is not allowed: a whole number from 0 to 10/);
    expect(emu.requests()).toEqual([]);
  });

  it('ids "." and ".." are refused (exit 2) instead of naming another endpoint', async () => {
    emu.clearRequests();
    for (const id of ['..', '.']) {
      const r = await svcInProcess(['files', 'get', id], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/is not a valid id/);
    }
    expect(emu.requests()).toEqual([]);
  });

  it('a --schema nested too deeply is a clear exit 2, not a stack overflow', async () => {
    emu.clearRequests();
    const schema = join(tempDir(), 'deep.json');
    writeFileSync(schema, `${'{"type":"object","x":'.repeat(5000)}1${'}'.repeat(5000)}`);
    const r = await svcInProcess(['chat', '--schema', schema, 'hi'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/nests JSON more than 200 levels deep/);
    expect(r.stderr).not.toMatch(/call stack/);
    expect(emu.requests()).toEqual([]);
  });

  it('a plain http:// base URL off loopback is refused unless SVC_ALLOW_INSECURE_HTTP=1', async () => {
    const r = await svcInProcess(['models', 'list'], {
      env: { SVC_BASE_URL: 'http://api.example.invalid', SVC_API_KEY: KEY },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/plain http:\/\/ would send the API key in clear to api\.example\.invalid/);
    const ws = await svcInProcess(['tts', 'say', 'hi', '-o', join(tempDir(), 'x.pcm')], {
      env: { SVC_BASE_URL: 'http://10.0.0.1:9', SVC_API_KEY: KEY },
    });
    expect(ws.exitCode).toBe(2);
    const allowed = await svcInProcess(['--max-retries', '0', 'models', 'list'], {
      env: { SVC_BASE_URL: 'http://api.example.invalid', SVC_API_KEY: KEY, SVC_ALLOW_INSECURE_HTTP: '1' },
    });
    expect(allowed.exitCode).toBe(1);
    expect(allowed.stderr).toMatch(/cannot resolve api\.example\.invalid/);
  });

  it('piped into chat -i, each line is answered in order and the REPL ends with stdin', async () => {
    const r = await svcInProcess(['chat', '-i'], { emu, input: 'first question\nsecond question\n' });
    expect(r.exitCode, r.stderr).toBe(0);
    const first = r.stdout.indexOf('first question');
    const second = r.stdout.indexOf('second question');
    expect(first).toBeGreaterThanOrEqual(0);
    expect(second).toBeGreaterThan(first);
  });

  it('an existing config folder is tightened to 0700 when svc writes to it', async () => {
    const configDir = join(tempDir(), 'cfg');
    mkdirSync(configDir, { mode: 0o755 });
    chmodSync(configDir, 0o755);
    const r = await svcInProcess(['config', 'set', 'model', 'svc-4'], { emu, configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(statSync(configDir).mode & 0o777).toBe(0o700);
  });
});

describe('inputs that are directories', () => {
  it('custom-voices create on a directory says so (exit 2), not EISDIR', async () => {
    const emu = await startTestEmulator();
    try {
      const r = await svcInProcess(['custom-voices', 'create', tempDir()], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/CLIP: .* is a directory, not an audio file/);
      expect(emu.requests()).toEqual([]);
    } finally {
      await emu.close();
    }
  });
});
