// `svc-emulator --version` (issue 40): the package's version and the Node that runs it, so that a report from a CI
// job says which emulator answered and on what (the single executable names the Node built into it).
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/svc-emulator.js', import.meta.url));
const own = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

describe('svc-emulator --version', () => {
  it('prints the version and the Node inside, exit 0, nothing on stderr', () => {
    const r = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      `svc-emulator ${own.version} (Node.js ${process.version}, ${process.platform}-${process.arch})\n`,
    );
  });

  it('with anything else on the line it is a usage error (exit 2), as any flag outside serve', () => {
    const r = spawnSync(process.execPath, [BIN, '--version', 'serve'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('usage: svc-emulator --version');
  });
});

describe('svc-emulator serve --state-dir', () => {
  // under /proc, mkdir says ENOENT below a folder that exists: Node 20's recursive mkdirSync looped there for ever
  it.runIf(process.platform === 'linux')('a folder that cannot be made: exit 2 naming the flag, at once', () => {
    const args = [BIN, 'serve', '--port', '0', '--state-dir', '/proc/svc-x/state'];
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      "svc-emulator: --state-dir /proc/svc-x/state: ENOENT: cannot make a folder here, mkdir '/proc/svc-x'",
    );
  });

  it('a fixtures file that is not there is the --fixtures flag', () => {
    const r = spawnSync(process.execPath, [BIN, 'serve', '--port', '0', '--fixtures', '/nonexistent/f.json'], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^svc-emulator: --fixtures \/nonexistent\/f\.json: cannot read/);
  });
});

describe('svc-emulator serve: a stdout that fails', () => {
  // the URL is what a client needs: a full disk ends the run (exit 1, the server closed, no ready file left), one line
  // on stderr and no stack trace of Node's
  it.runIf(process.platform === 'linux')('/dev/full: exit 1 at once, the error said, the ready file removed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-emu-stdout-'));
    const ready = join(dir, 'ready.env');
    const full = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [BIN, 'serve', '--port', '0', '--ready-file', ready], {
        encoding: 'utf8',
        stdio: ['ignore', full, 'pipe'],
        timeout: 20_000,
      });
      expect(r.stderr).toBe('svc-emulator: could not write to standard output: ENOSPC\n');
      expect(r.status).toBe(1);
      expect(existsSync(ready)).toBe(false);
    } finally {
      closeSync(full);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
