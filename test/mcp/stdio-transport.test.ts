// Every MCP server `svc chat --mcp` starts is ended with everything it started, on every way out of svc (issue 36,
// item 7): success, an error, --timeout, Ctrl-C, SIGTERM and a crash of svc's own. The server (test/fixtures/mcp/
// two-tools.mjs with MCP_TEST_PIDS) starts a child of its own and writes both pids; after svc is done, neither runs.
// On Windows the tree is ended by `taskkill /T /F` (the platform injected, the calls recorded).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it as plainIt } from 'vitest';
import { itWithEmulator } from '../helpers/emulator.js';
import { ROOT, tempDir } from '../helpers/files.js';
import { svcInProcess } from '../helpers/in-process.js';
import { spawnSvc } from '../helpers/subprocess.js';
import { StdioServerTransport } from '../../src/mcp/stdio-transport.js';

const it = itWithEmulator();
const SERVER = `node ${join(ROOT, 'test', 'fixtures', 'mcp', 'two-tools.mjs')}`;

/** Whether a process runs (a zombie left to an init that does not reap counts as ended). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true;
  }
}

async function until(ok: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const pidsIn = (file: string) => readFileSync(file, 'utf8').split(' ').map(Number);

/** The server's pid and its child's both end (within 3 s: the time a close takes, TERM then KILL). */
async function expectEnded(file: string): Promise<void> {
  const [server, child] = pidsIn(file);
  expect(server).toBeGreaterThan(0);
  expect(child).toBeGreaterThan(0);
  const end = Date.now() + 3000;
  while ((running(server!) || running(child!)) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  expect({ server: running(server!), child: running(child!) }).toEqual({ server: false, child: false });
}

describe.concurrent('the MCP servers of svc chat --mcp end with svc', () => {
  it('after an answer (success)', async ({ emu }) => {
    const pids = join(tempDir('svc-mcp-pids-'), 'pids');
    const r = await svcInProcess(['chat', '--mcp', SERVER, 'use city_facts'], { emu, env: { MCP_TEST_PIDS: pids } });
    expect(r.exitCode).toBe(0);
    await expectEnded(pids);
  });

  it('after an error of the API (500)', async ({ emu }) => {
    emu.faults.add({ kind: 'status', status: 500, path: '/v1/chat/completions' });
    const pids = join(tempDir('svc-mcp-pids-'), 'pids');
    const r = await svcInProcess(['chat', '--mcp', SERVER, 'hi'], { emu, env: { MCP_TEST_PIDS: pids } });
    expect(r.exitCode).toBe(7);
    await expectEnded(pids);
  });

  it('after a server that never answers initialize (--timeout)', async ({ emu }) => {
    const pids = join(tempDir('svc-mcp-pids-'), 'pids');
    const r = await svcInProcess(['--timeout', '2', 'chat', '--mcp', `${SERVER} hang`, 'hi'], {
      emu,
      env: { MCP_TEST_PIDS: pids },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/the MCP server did not start within 2 s \(--timeout\)/);
    await expectEnded(pids);
  });

  for (const [signal, exit] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`after ${signal} while it starts`, async ({ emu }) => {
      const pids = join(tempDir('svc-mcp-pids-'), 'pids');
      const svc = spawnSvc(['--timeout', '60', 'chat', '--mcp', `${SERVER} hang`, 'hi'], {
        emu,
        env: { MCP_TEST_PIDS: pids },
      });
      await until(() => existsSync(pids), 'the server to start');
      svc.kill(signal);
      const r = await svc;
      expect(r.exitCode).toBe(exit);
      await expectEnded(pids);
    });
  }

  it("after a crash of svc's own (an uncaught exception)", async ({ emu }) => {
    const dir = tempDir('svc-mcp-crash-');
    const pids = join(dir, 'pids');
    const crash = join(dir, 'crash.cjs');
    // once the server runs, svc throws where nothing catches it
    writeFileSync(
      crash,
      `const fs = require('node:fs');\nconst t = setInterval(() => { if (fs.existsSync(${JSON.stringify(pids)})) ` +
        `{ clearInterval(t); setTimeout(() => { throw new Error('svc crashed'); }, 200); } }, 20);\nt.unref();\n`,
    );
    const r = await spawnSvc(['--timeout', '60', 'chat', '--mcp', `${SERVER} hang`, 'hi'], {
      emu,
      env: { MCP_TEST_PIDS: pids, NODE_OPTIONS: `--require ${crash}` },
    });
    expect(r.stderr).toMatch(/svc crashed/);
    expect(r.exitCode).not.toBe(0);
    await expectEnded(pids);
  });
});

describe('stopping a server on Windows', () => {
  plainIt('ends its tree with taskkill /T /F, and signals no process group', async () => {
    const calls: string[] = [];
    const t = new StdioServerTransport({
      command: process.execPath,
      // ends at the end of its stdin, as an MCP server does
      args: ['-e', 'process.stdin.resume()'],
      env: { PATH: process.env.PATH ?? '' },
      maxMessageBytes: 1024,
      platform: 'win32',
      killer: {
        kill: (pid, signal) => calls.push(`kill ${pid} ${signal}`),
        run: (file, args) => calls.push([file, ...args].join(' ')),
      },
    });
    await t.start();
    const pid = t.pid!;
    await t.close();
    expect(calls).toEqual([`taskkill /PID ${pid} /T /F`, `taskkill /PID ${pid} /T /F`]);
  });
});
