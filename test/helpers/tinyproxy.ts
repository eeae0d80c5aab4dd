// A real HTTP proxy on loopback for the network tests: tinyproxy (Debian's tinyproxy-bin, installed by
// scripts/install-system-deps.sh), optionally with Basic authentication. Its own log is the proof of what went
// through it (`connects()`: the CONNECT requests it received). A missing tinyproxy fails the test, saying so.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerSecret } from './secrets.js';

export interface Tinyproxy {
  /** http://127.0.0.1:PORT, with user:password@ when it asks for them */
  url: string;
  /** the URL without the credentials */
  bareUrl: string;
  port: number;
  /** the request lines it logged (`CONNECT 127.0.0.1:1234 HTTP/1.1`, `GET http://… HTTP/1.1`) */
  requests(): string[];
  /** the targets of the CONNECT requests it logged (`127.0.0.1:1234`) */
  connects(): string[];
  stop(): Promise<void>;
}

/** A port free on loopback now (for programs that take a port number, not 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export function tinyproxyMissing(): string | undefined {
  const r = spawnSync('tinyproxy', ['-v'], { encoding: 'utf8' });
  if (r.error)
    return (
      'tinyproxy is missing: these tests need a real proxy. Install it with scripts/install-system-deps.sh ' +
      '(apt-get install tinyproxy-bin)'
    );
  return undefined;
}

export async function startTinyproxy(opts: { auth?: { user: string; password: string } } = {}): Promise<Tinyproxy> {
  const missing = tinyproxyMissing();
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), 'svc-tinyproxy-'));
  const log = join(dir, 'tinyproxy.log');
  const conf = join(dir, 'tinyproxy.conf');
  for (let tries = 0; ; tries++) {
    const port = await freePort();
    const lines = [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 60',
      `LogFile "${log}"`,
      'LogLevel Info',
      'MaxClients 100',
      'Allow 127.0.0.1',
      'DisableViaHeader Yes',
    ];
    if (opts.auth) {
      lines.push(`BasicAuth ${opts.auth.user} ${opts.auth.password}`);
      registerSecret(opts.auth.password);
    }
    writeFileSync(conf, `${lines.join('\n')}\n`);
    const child = spawn('tinyproxy', ['-d', '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const listening = await waitForLog(log, child, 'Accepting connections');
    if (!listening) {
      child.kill();
      if (tries < 3) continue;
      throw new Error(`tinyproxy did not start: ${stderr}${safeRead(log)}`);
    }
    const bareUrl = `http://127.0.0.1:${port}`;
    const url = opts.auth
      ? `http://${opts.auth.user}:${encodeURIComponent(opts.auth.password)}@127.0.0.1:${port}`
      : bareUrl;
    const requests = () =>
      [...safeRead(log).matchAll(/Request \(file descriptor \d+\): (.*)$/gm)].map((m) => m[1]!.trim());
    return {
      url,
      bareUrl,
      port,
      requests,
      connects: () => requests().flatMap((r) => (/^CONNECT (\S+)/.exec(r) ? [r.split(' ')[1]!] : [])),
      stop: () => stopChild(child),
    };
  }
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Resolves true once the log says `text`, false when the process ends first. */
function waitForLog(log: string, child: ChildProcess, text: string): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (safeRead(log).includes(text)) done(true);
    }, 20);
    const onExit = () => done(safeRead(log).includes(text));
    child.once('exit', onExit);
    function done(ok: boolean) {
      clearInterval(timer);
      child.off('exit', onExit);
      resolve(ok);
    }
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
