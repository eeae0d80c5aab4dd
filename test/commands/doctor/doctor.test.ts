// svc doctor: one line per check (ok/warn/fail, with a fix), --json for CI, exit 0/1; against the emulator, a TLS
// front with a private CA and a real tinyproxy, all on loopback. Its output never holds the key or a proxy password
// (every run here is scanned for the key; the proxy password is registered as a secret too).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { closedPort } from '../../helpers/hostile-server.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { makePrivateCa, startTlsFront, type PrivateCa, type TlsFront } from '../../helpers/private-ca.js';
import { startTinyproxy, tinyproxyMissing, type Tinyproxy } from '../../helpers/tinyproxy.js';

const PASSWORD = 'doctor-proxy-pw-42';
let emu: TestEmulator;
let ca: PrivateCa;
let front: TlsFront;
let proxy: Tinyproxy;

beforeAll(async () => {
  const missing = tinyproxyMissing();
  if (missing) throw new Error(missing);
  emu = await startTestEmulator();
  ca = makePrivateCa();
  front = await startTlsFront(ca, new URL(emu.url).host);
  proxy = await startTinyproxy({ auth: { user: 'bob', password: PASSWORD } });
});
afterAll(async () => {
  await proxy?.stop();
  await front?.close();
  await emu?.close();
});

interface Report {
  ok: boolean;
  checks: { name: string; status: 'ok' | 'warn' | 'fail'; detail: string; fix?: string }[];
}

async function doctor(args: string[], env: Record<string, string> = {}, key?: null) {
  const r = await svcInProcess([...args, 'doctor', '--json'], { emu, env, key });
  const text = await svcInProcess([...args, 'doctor'], { emu, env, key });
  expect(r.stdout + r.stderr + text.stdout + text.stderr).not.toContain(PASSWORD);
  const report = JSON.parse(r.stdout) as Report;
  const by = (name: string) => report.checks.find((c) => c.name === name)!;
  return { r, text, report, by };
}

describe('svc doctor', () => {
  it('healthy against the emulator: every network check ok, exit 0, one line per check', async () => {
    const { r, text, report, by } = await doctor(['--emulator']);
    expect(r.exitCode, r.stdout).toBe(0);
    expect(report.ok).toBe(true);
    for (const name of ['config', 'key', 'base url', 'dns', 'proxy', 'tls', 'api', 'clock'])
      expect(by(name).status, JSON.stringify(by(name))).toBe('ok');
    for (const name of ['audio capture', 'ffmpeg', 'ffprobe', 'speaker', 'completion']) expect(by(name)).toBeDefined();
    expect(by('key').detail).toBe('from the emulator');
    expect(text.exitCode).toBe(0);
    expect(text.stdout.split('\n').filter((l) => /^(ok|warn|fail) /.test(l))).toHaveLength(report.checks.length);
  });

  it('healthy over https through a proxy with a password: the proxy answers CONNECT, the issuer named', async () => {
    const { r, by } = await doctor(['--proxy', proxy.url], { SVC_BASE_URL: front.url, SVC_CA_CERT: ca.caFile });
    expect(r.exitCode, r.stdout).toBe(0);
    expect(by('proxy')).toMatchObject({
      status: 'ok',
      detail: `${proxy.bareUrl} answers CONNECT to 127.0.0.1:${front.port}`,
    });
    expect(by('tls')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/issued by svc Test Root CA/) });
    expect(by('api').status).toBe('ok');
    expect(proxy.connects()).toContain(`127.0.0.1:${front.port}`);
  });

  it('a dead proxy: proxy fail naming it (no password), api not reached, exit 1', async () => {
    const dead = (await closedPort()).replace('//', `//bob:${PASSWORD}@`);
    const { r, text, report, by } = await doctor(['--proxy', dead], {
      SVC_BASE_URL: front.url,
      SVC_CA_CERT: ca.caFile,
    });
    expect(r.exitCode).toBe(1);
    expect(report.ok).toBe(false);
    expect(by('proxy')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/cannot connect to the proxy http:\/\/127\.0\.0\.1:\d+: connection refused/),
    });
    expect(by('proxy').fix).toMatch(/--proxy/);
    expect(by('api')).toMatchObject({ status: 'fail', detail: 'not reached: the proxy row says why' });
    expect(by('clock')).toMatchObject({ status: 'warn', detail: 'not checked: the server was not reached' });
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toMatch(/^fail +proxy +cannot connect to the proxy/m);
    expect(text.stdout).toMatch(/^ +fix: check --proxy/m);
  });

  it('an untrusted CA: tls fail naming the issuer, the fix names SVC_CA_CERT, exit 1', async () => {
    const { r, by } = await doctor([], { SVC_BASE_URL: front.url });
    expect(r.exitCode).toBe(1);
    expect(by('tls').status).toBe('fail');
    expect(by('tls').detail).toMatch(/cannot trust the certificate of 127\.0\.0\.1:\d+.*issued by svc Test Root CA/);
    expect(by('tls').fix).toMatch(/SVC_CA_CERT/);
  });

  it('a missing key: key fail with the fix, exit 1, the rest still checked', async () => {
    const { r, by } = await doctor([], { SVC_BASE_URL: emu.url }, null);
    expect(r.exitCode).toBe(1);
    expect(by('key')).toMatchObject({
      status: 'fail',
      detail: 'no API key',
      fix: expect.stringMatching(/svc auth login/),
    });
    expect(by('dns').status).toBe('ok');
    expect(by('api')).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/no API key \(see the key row\)/),
    });
    // the clock is read from the server's reply without the key (issue 37 item 13)
    expect(by('clock')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/of the server's clock/) });
  });

  it('a refused key: api fail naming the refusal and the fix, the clock still checked, exit 1', async () => {
    const { r, text, by } = await doctor([], { SVC_BASE_URL: emu.url, SVC_API_KEY: 'svc-not-a-real-key-000000' });
    expect(r.exitCode).toBe(1);
    expect(by('api')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/^the key is refused \(HTTP 400: Incorrect API key provided/),
      fix: expect.stringMatching(/svc auth login/),
    });
    expect(by('clock').status).toBe('ok');
    // issue 37 item 13: the fix pointed at "the lines above", where nothing was
    expect(text.stdout).not.toMatch(/see the lines above|see above/);
  });

  it('a dead base URL: api fail with a fix of its own, the clock row says it was not checked', async () => {
    const { r, by } = await doctor([], { SVC_BASE_URL: await closedPort() });
    expect(r.exitCode).toBe(1);
    expect(by('api')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/connection refused/) });
    expect(by('api').fix).toMatch(/base URL/);
    expect(by('clock')).toMatchObject({ status: 'warn', detail: 'not checked: the server did not answer' });
  });
});
