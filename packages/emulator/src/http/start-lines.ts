// What `serve` prints for the shell (`svc emulator serve` and `svc-emulator serve` alike): the ready file's lines,
// the --print-env lines for eval, and letting go of stdout so that `eval "$(… --print-env &)"` returns (a command
// substitution waits until every holder of the pipe has closed it).

/** The ready file's lines: `NAME=value`, for `set -a; . FILE` or `>> $GITHUB_ENV`. */
export function envLines(url: string, key: string): string {
  return `SVC_BASE_URL=${url}\nSVC_API_KEY=${key}\n`;
}

/** The --print-env lines, for eval: `export NAME=value` (URLs, keys and a pid: nothing to quote), and the pid. */
export function exportLines(url: string, key: string): string {
  return `export SVC_BASE_URL=${url}\nexport SVC_API_KEY=${key}\nexport SVC_EMULATOR_PID=${process.pid}\n`;
}

/**
 * Hand fd 1 back to its reader: wait until what was written is with the OS, close it, and put /dev/null in its
 * place (so that fd 1 is never some file opened later). Only for the process's own stdout when it is not a terminal;
 * a command run in-process with streams of its own keeps them.
 */
export async function releaseStdout(stdout: NodeJS.WritableStream & { isTTY?: boolean }): Promise<void> {
  if (stdout !== process.stdout || stdout.isTTY) return;
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  const { closeSync, openSync } = await import('node:fs');
  closeSync(1);
  const fd = openSync('/dev/null', 'w');
  // fd 1 was the lowest free descriptor (0 is stdin); should another have taken it, ours is not needed
  if (fd !== 1) closeSync(fd);
}
