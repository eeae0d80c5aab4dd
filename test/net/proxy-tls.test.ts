// Proxies and trust on every transport, with real parts on loopback: tinyproxy (with and without Basic
// authentication), a TLS front with a private CA made by openssl at test time, and the emulator behind it.
// Each transport (REST, SSE stream, upload, download, the three WebSocket protocols) × {direct, proxy, proxy with
// auth, NO_PROXY bypass, dead proxy}; tinyproxy's own log proves the CONNECT or its absence.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { fastEmulator } from '../commands/realtime/talk-helpers.js';
import { tempDir } from '../helpers/files.js';
import { closedPort } from '../helpers/hostile-server.js';
import { svcInProcess } from '../helpers/in-process.js';
import { makePrivateCa, startTlsFront, type PrivateCa, type TlsFront } from '../helpers/private-ca.js';
import { svcProcess } from '../helpers/subprocess.js';
import { FULL_RUN } from '../helpers/full.js';
import { startTinyproxy, tinyproxyMissing, type Tinyproxy } from '../helpers/tinyproxy.js';

const PROXY_PASSWORD = 'pr0xy-s3cret-pass';

let emu: TestEmulator;
let ca: PrivateCa;
let front: TlsFront;
let proxy: Tinyproxy;
let authProxy: Tinyproxy;
let deadProxy: string;
let dir: string;
let wav: string;
let fileId: string;

beforeAll(async () => {
  // not skipped: without tinyproxy every test here fails with this message
  const missing = tinyproxyMissing();
  if (missing) throw new Error(missing);
  emu = await startTestEmulator();
  // realtime answers at once, not at real time: the transport is what is checked here
  fastEmulator(emu);
  ca = makePrivateCa();
  front = await startTlsFront(ca, new URL(emu.url).host);
  proxy = await startTinyproxy();
  authProxy = await startTinyproxy({ auth: { user: 'alice', password: PROXY_PASSWORD } });
  deadProxy = await closedPort();
  dir = tempDir('svc-proxy-');
  writeFileSync(join(dir, 'up.txt'), 'through the proxy\n');
  wav = join(dir, 'in.wav');
  execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', wav, 'synth', '0.4', 'sine', '440']);
  const up = await svcInProcess(['files', 'upload', join(dir, 'up.txt')], { emu });
  fileId = up.stdout.split('\t')[0]!;
});

afterAll(async () => {
  await proxy?.stop();
  await authProxy?.stop();
  await front?.close();
  await emu?.close();
});

/** The front's host:port, as a CONNECT names it. */
const target = () => `127.0.0.1:${front.port}`;

interface Transport {
  name: string;
  args: () => string[];
  /** what the emulator saw: the request that proves the transport worked */
  reached: RegExp;
  ok?: (stdout: string) => void;
}

const TRANSPORTS: Transport[] = [
  { name: 'REST (models list)', args: () => ['models', 'list'], reached: /^GET \/v1\/models$/ },
  { name: 'SSE stream (chat)', args: () => ['chat', '--no-save', 'hello'], reached: /^POST \/v1\/chat/ },
  {
    name: 'upload (files upload)',
    args: () => ['files', 'upload', join(dir, 'up.txt')],
    reached: /^POST \/v1\/files$/,
    ok: (out) => expect(out).toMatch(/^file_\S+\tup\.txt\t18/),
  },
  {
    name: 'download (files download)',
    args: () => ['files', 'download', fileId, '-o', join(dir, 'down.txt'), '--force'],
    reached: /^GET \/v1\/files\/.*\/content$/,
    ok: () => expect(readFileSync(join(dir, 'down.txt'), 'utf8')).toBe('through the proxy\n'),
  },
  {
    name: 'WebSocket TTS (tts say)',
    args: () => ['tts', 'say', 'hello', '-o', join(dir, 'say.pcm'), '--force'],
    reached: /^WS \/v1\/tts/,
    ok: () => expect(statSync(join(dir, 'say.pcm')).size).toBeGreaterThan(1000),
  },
  {
    name: 'WebSocket STT (stt listen)',
    args: () => ['stt', 'listen', '--input', wav, '--no-realtime'],
    reached: /^WS \/v1\/stt/,
  },
  {
    name: 'WebSocket realtime (realtime talk)',
    args: () => ['realtime', 'talk', '--input', wav, '--output', join(dir, 'talk.wav'), '--force'],
    reached: /^WS \/v1\/realtime/,
    ok: () => expect(readFileSync(join(dir, 'talk.wav')).subarray(0, 4).toString()).toBe('RIFF'),
  },
];

/** A run against the TLS front (its CA trusted through SVC_CA_CERT), with the extra flags and environment. */
async function run(args: string[], env: Record<string, string> = {}, flags: string[] = []) {
  emu.clearRequests();
  const r = await svcInProcess([...flags, ...args], {
    emu,
    env: { SVC_BASE_URL: front.url, SVC_CA_CERT: ca.caFile, ...env },
  });
  const seen = emu.requests().map((q) => `${q.method} ${q.path}`);
  return { ...r, seen, why: `exit ${r.exitCode}\nstdout: ${r.stdout}\nstderr: ${r.stderr}\nseen: ${seen}` };
}

/** CONNECTs to the front that `p` logged while `fn` ran. */
async function connectsDuring(p: Tinyproxy, fn: () => Promise<void>): Promise<string[]> {
  const before = p.connects().length;
  await fn();
  return p.connects().slice(before);
}

/** The run succeeded, its request reached the emulator and its output is right. */
function worked(t: Transport, r: Awaited<ReturnType<typeof run>>): void {
  expect(r.exitCode, r.why).toBe(0);
  expect(
    r.seen.some((s) => t.reached.test(s)),
    r.why,
  ).toBe(true);
  t.ok?.(r.stdout);
}

/**
 * Outside the full run (test/helpers/full.ts) the five ways (direct, proxy, proxy with auth, NO_PROXY, a dead proxy)
 * are met by one command of each kind of connection: a REST request, an event stream, a WebSocket; the full run
 * adds the upload, the download and the two other WebSocket routes.
 */
const EVERYDAY = ['REST (models list)', 'SSE stream (chat)', 'WebSocket TTS (tts say)'];

describe.each(FULL_RUN ? TRANSPORTS : TRANSPORTS.filter((t) => EVERYDAY.includes(t.name)))('$name', (t) => {
  it('direct: no proxy, no CONNECT', async () => {
    const log = await connectsDuring(proxy, async () => {
      const r = await run(t.args());
      worked(t, r);
    });
    expect(log).toEqual([]);
  });

  it('through the proxy (--proxy): the proxy logs the CONNECT', async () => {
    const log = await connectsDuring(proxy, async () => {
      const r = await run(t.args(), {}, ['--proxy', proxy.url]);
      worked(t, r);
    });
    expect(log).toContain(target());
  });

  it('through a proxy with Basic auth: CONNECT logged, the password never printed', async () => {
    const log = await connectsDuring(authProxy, async () => {
      const r = await run(t.args(), {}, ['--verbose', '--proxy', authProxy.url]);
      worked(t, r);
      expect(r.stdout + r.stderr).not.toContain(PROXY_PASSWORD);
    });
    expect(log).toContain(target());
  });

  it('NO_PROXY names the host: bypassed, no CONNECT', async () => {
    const log = await connectsDuring(proxy, async () => {
      const r = await run(t.args(), { NO_PROXY: 'example.test,127.0.0.1' }, ['--proxy', proxy.url]);
      worked(t, r);
    });
    expect(log).toEqual([]);
  });

  it('a dead proxy: exit 1, the proxy named, nothing reached the API', async () => {
    const r = await run(t.args(), {}, ['--max-retries', '0', '--proxy', deadProxy]);
    expect(r.exitCode, r.why).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`cannot connect to the proxy ${deadProxy}: connection refused`));
    expect(r.seen).toEqual([]);
  });
});

describe('plain http:// through an http proxy, and refused proxy credentials', () => {
  it('plain http:// goes to the proxy in absolute form as curl sends it, no CONNECT (issue 37 item 15)', async () => {
    const host = new URL(emu.url).host;
    for (const [args, line] of [
      [['models', 'list'], `GET http://${host}/v1/models `],
      [['chat', '--no-save', 'hello'], `POST http://${host}/v1/chat/completions `],
    ] as const) {
      const before = authProxy.requests().length;
      const r = await svcInProcess(['--proxy', authProxy.url, ...args], { emu, env: { SVC_BASE_URL: emu.url } });
      expect(r.exitCode, r.stderr).toBe(0);
      const seen = authProxy.requests().slice(before);
      expect(
        seen.some((l) => l.startsWith(line)),
        seen.join('\n'),
      ).toBe(true);
      expect(seen.filter((l) => l.startsWith('CONNECT'))).toEqual([]);
    }
  });

  it('refused credentials are final: said at once with the fix, never retried (issue 37 item 14)', async () => {
    const wrong = authProxy.bareUrl.replace('//', '//alice:wrong-password@');
    // https:// (CONNECT refused) and http:// (the absolute-form request refused), with the default 2 retries
    for (const base of [front.url, emu.url]) {
      const before = authProxy.requests().length;
      const r = await svcInProcess(['--proxy', wrong, 'models', 'list'], {
        emu,
        env: { SVC_BASE_URL: base, SVC_CA_CERT: ca.caFile },
      });
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        /the proxy http:\/\/127\.0\.0\.1:\d+ asks for credentials \(HTTP 40[17]\): the user and password in the proxy URL were refused/,
      );
      expect(r.stderr).not.toMatch(/retrying|UND_ERR/);
      expect(r.stderr).not.toContain('wrong-password');
      expect(authProxy.requests().slice(before), base).toHaveLength(1);
    }
  });
});

describe('proxies from the environment', () => {
  it('HTTPS_PROXY is used for https:// and wss://, never for loopback (so this run is direct)', async () => {
    const log = await connectsDuring(proxy, async () => {
      const r = await run(['models', 'list'], { HTTPS_PROXY: proxy.url, https_proxy: deadProxy });
      expect(r.exitCode, r.why).toBe(0);
    });
    expect(log).toEqual([]);
  });

  it("--proxy '' turns a configured proxy off for one run", async () => {
    const cfg = tempDir('svc-proxy-cfg-');
    const set = await svcInProcess(['config', 'set', 'proxy', deadProxy], { emu, configDir: cfg });
    expect(set.exitCode, set.stderr).toBe(0);
    emu.clearRequests();
    const on = await svcInProcess(['--max-retries', '0', 'models', 'list'], {
      emu,
      configDir: cfg,
      env: { SVC_BASE_URL: front.url, SVC_CA_CERT: ca.caFile },
    });
    expect(on.exitCode).toBe(1);
    expect(on.stderr).toMatch(/the proxy http:\/\/127\.0\.0\.1:\d+/);
    const off = await svcInProcess(['--proxy', '', 'models', 'list'], {
      emu,
      configDir: cfg,
      env: { SVC_BASE_URL: front.url, SVC_CA_CERT: ca.caFile },
    });
    expect(off.exitCode, off.stderr).toBe(0);
  });

  it('a proxy that refuses the credentials: named, HTTP 407 said, the password not printed', async () => {
    const wrong = authProxy.bareUrl.replace('//', '//alice:wrong-password@');
    for (const args of [
      ['models', 'list'],
      ['tts', 'say', 'hi', '-o', join(dir, 'x.pcm'), '--force'],
    ]) {
      const r = await run(args, {}, ['--max-retries', '0', '--proxy', wrong]);
      expect(r.exitCode, r.why).toBe(1);
      expect(r.stderr).toMatch(/the proxy http:\/\/127\.0\.0\.1:\d+ asks for credentials \(HTTP 40[17]\)/);
      expect(r.stderr).not.toContain('wrong-password');
    }
  });

  it('the built CLI (launcher, bundle) goes through the proxy too, REST and WebSocket', async () => {
    for (const args of [
      ['models', 'list'],
      ['tts', 'say', 'hi', '-o', join(dir, 'b.pcm'), '--force'],
    ]) {
      const log = await connectsDuring(authProxy, async () => {
        const r = await svcProcess(['--proxy', authProxy.url, ...args], {
          emu,
          env: { SVC_BASE_URL: front.url, SVC_CA_CERT: ca.caFile },
        });
        expect(r.exitCode, r.stderr).toBe(0);
      });
      expect(log).toContain(target());
    }
  });
});

describe('trust: a private CA', () => {
  it('unknown CA: exit 1 at once (no retry), the host and issuer named, SVC_CA_CERT hinted', async () => {
    for (const args of [
      ['models', 'list'],
      ['tts', 'say', 'hi', '-o', join(dir, 'y.pcm'), '--force'],
    ]) {
      const before = front.connections();
      emu.clearRequests();
      const r = await svcInProcess(['--max-retries', '2', ...args], { emu, env: { SVC_BASE_URL: front.url } });
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toContain(`cannot trust the certificate of ${target()}`);
      expect(r.stderr).toContain('issued by svc Test Root CA (svc tests)');
      expect(r.stderr).toMatch(/a proxy or firewall may be inspecting TLS: point SVC_CA_CERT/);
      expect(r.stderr).not.toMatch(/retrying/);
      // one connection refused by the client, not three (--max-retries 2), and one that reads the issuer
      expect(front.connections() - before, r.stderr).toBe(2);
      expect(emu.requests()).toEqual([]);
    }
  });

  it('the same CA through SVC_CA_CERT, SSL_CERT_FILE, SSL_CERT_DIR and the ca_cert key: success', async () => {
    const certDir = join(dir, 'certs');
    mkdirSync(certDir, { recursive: true });
    copyFileSync(ca.caFile, join(certDir, 'private-ca.pem'));
    const cfg = tempDir('svc-ca-cfg-');
    await svcInProcess(['config', 'set', 'ca_cert', ca.caFile], { emu, configDir: cfg });
    const envs: Record<string, string>[] = [
      { SVC_CA_CERT: ca.caFile },
      { SSL_CERT_FILE: ca.caFile },
      { SSL_CERT_DIR: certDir },
    ];
    for (const env of envs) {
      for (const args of [
        ['models', 'list'],
        ['tts', 'say', 'hi', '-o', join(dir, 'z.pcm'), '--force'],
      ]) {
        const r = await svcInProcess(args, { emu, env: { SVC_BASE_URL: front.url, ...env } });
        expect(r.exitCode, `${JSON.stringify(env)} ${r.stderr}`).toBe(0);
      }
    }
    const k = await svcInProcess(['models', 'list'], { emu, configDir: cfg, env: { SVC_BASE_URL: front.url } });
    expect(k.exitCode, k.stderr).toBe(0);
  });

  it("NODE_EXTRA_CA_CERTS (Node's own, read at start): success, and kept when SSL_CERT_DIR is set too", async () => {
    const r = await svcProcess(['models', 'list'], {
      emu,
      env: { SVC_BASE_URL: front.url, NODE_EXTRA_CA_CERTS: ca.caFile },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const both = await svcProcess(['models', 'list'], {
      emu,
      env: { SVC_BASE_URL: front.url, NODE_EXTRA_CA_CERTS: ca.caFile, SSL_CERT_DIR: tempDir('svc-empty-') },
    });
    expect(both.exitCode, both.stderr).toBe(0);
  });

  it('a CA file that cannot be read is a usage error naming it (exit 2)', async () => {
    const r = await svcInProcess(['models', 'list'], {
      emu,
      env: { SVC_BASE_URL: front.url, SVC_CA_CERT: join(dir, 'missing.pem') },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/SVC_CA_CERT \/ ca_cert: cannot read .*missing\.pem: ENOENT/);
  });
});

describe('mutual TLS', () => {
  let mtls: TlsFront;
  beforeAll(async () => {
    mtls = await startTlsFront(ca, new URL(emu.url).host, { requireClientCert: true });
  });
  afterAll(() => mtls?.close());
  const env = () => ({ SVC_BASE_URL: mtls.url, SVC_CA_CERT: ca.caFile });

  it('accepted with the client certificate (SVC_CLIENT_CERT/SVC_CLIENT_KEY), HTTP and WebSocket', async () => {
    for (const args of [
      ['models', 'list'],
      ['tts', 'say', 'hi', '-o', join(dir, 'm.pcm'), '--force'],
    ]) {
      const r = await svcInProcess(args, {
        emu,
        env: { ...env(), SVC_CLIENT_CERT: ca.clientCert, SVC_CLIENT_KEY: ca.clientKey },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/warning/);
    }
  });

  it('accepted with the client_cert and client_key keys, and through the proxy', async () => {
    const cfg = tempDir('svc-mtls-cfg-');
    await svcInProcess(['config', 'set', 'client_cert', ca.clientCert], { emu, configDir: cfg });
    await svcInProcess(['config', 'set', 'client_key', ca.clientKey], { emu, configDir: cfg });
    for (const args of [
      ['models', 'list'],
      ['tts', 'say', 'hi', '-o', join(dir, 'n.pcm'), '--force'],
    ]) {
      const log = await connectsDuring(proxy, async () => {
        const r = await svcInProcess(['--proxy', proxy.url, ...args], { emu, configDir: cfg, env: env() });
        expect(r.exitCode, r.stderr).toBe(0);
      });
      expect(log).toContain(`127.0.0.1:${mtls.port}`);
    }
  });

  it('refused without it: exit 1, HTTP and WebSocket', async () => {
    for (const args of [
      ['models', 'list'],
      ['tts', 'say', 'hi', '-o', join(dir, 'o.pcm'), '--force'],
    ]) {
      emu.clearRequests();
      const r = await svcInProcess(['--max-retries', '0', ...args], { emu, env: env() });
      expect(r.exitCode, r.stderr).toBe(1);
      expect(emu.requests()).toEqual([]);
    }
  });

  it('a key file others can read: a warning naming it, and the run still works', async () => {
    const loose = join(dir, 'loose.key');
    copyFileSync(ca.clientKey, loose);
    chmodSync(loose, 0o644);
    const r = await svcInProcess(['models', 'list'], {
      emu,
      env: { ...env(), SVC_CLIENT_CERT: ca.clientCert, SVC_CLIENT_KEY: loose },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`warning: the client key ${loose} can be read by other users (mode 644): chmod 600`);
  });
});
