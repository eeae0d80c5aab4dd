// One temporary folder for the whole run: every test's temp dirs (test/helpers/files.ts tempDir, run-env's config
// dirs, mkdtemp of os.tmpdir()) and every process the suite starts (TMPDIR is inherited) land in it, and it is
// removed at the end, also after a failed run. Without it each run left ~1 GB in /tmp (the executables, the long
// voice recordings, ~3000 config dirs), and a machine that ran the suite often ran out of disk mid-run.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const run = mkdtempSync(join(tmpdir(), 'svc-test-run-'));
  // as /tmp is: a test runs svc as another user (nobody) in a folder of its own here
  chmodSync(run, 0o1777);
  process.env.TMPDIR = run;
  return () => rmSync(run, { recursive: true, force: true, maxRetries: 3 });
}
