// One temporary folder for the whole run: every test's temp dirs (test/helpers/files.ts tempDir, run-env's config
// dirs, mkdtemp of os.tmpdir()) and every process the suite starts (TMPDIR is inherited) land in it, and it is
// removed at the end, also after a failed run. Without it each run left ~1 GB in /tmp (the executables, the long
// voice recordings, ~3000 config dirs), and a machine that ran the suite often ran out of disk mid-run.
// At the end, a process still running with that TMPDIR is one a test left behind (a server started in the background
// and never stopped): it is named, killed, and fails the run.
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => Promise<void> {
  const run = mkdtempSync(join(tmpdir(), 'svc-test-run-'));
  // as /tmp is: a test runs svc as another user (nobody) in a folder of its own here
  chmodSync(run, 0o1777);
  process.env.TMPDIR = run;
  return async () => {
    let left = leftBehind(run);
    for (let i = 0; i < 30 && left.length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = leftBehind(run);
    }
    for (const { pid } of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    rmSync(run, { recursive: true, force: true, maxRetries: 3 });
    if (left.length > 0) {
      // vitest reports an error thrown here but still exits 0
      process.exitCode = 1;
      throw new Error(
        `processes left running by the tests (killed now):\n${left.map((p) => `  ${p.pid} ${p.command}`).join('\n')}`,
      );
    }
  };
}

/** Processes (Linux: /proc) other than this one whose environment has TMPDIR=run. */
function leftBehind(run: string): { pid: number; command: string }[] {
  if (process.platform !== 'linux') return [];
  const mark = `TMPDIR=${run}`;
  const found: { pid: number; command: string }[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(mark)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      if (/\) Z /.test(stat)) continue; // a zombie: ended, waiting for its parent to read its status
      const command = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
      found.push({ pid, command });
    } catch {} // ended meanwhile, or not ours to read
  }
  return found;
}
