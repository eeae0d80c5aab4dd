// Standard output that fails, each way a real one does (issue 25): ENOSPC is /dev/full; EFBIG a file already at the
// process's size limit (`ulimit -f`, appended to); EBADF a descriptor open for reading only (`1</dev/null`); EIO, which
// no device gives on demand, a write(2) shim preloaded into the CLI's process (LD_PRELOAD) that fails every write to
// descriptor 1 with the errno it is given. Each is a bash prefix for svcShell: `${stdoutFaultScript(kind)}`.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './files.js';
import { shellQuote } from './run-env.js';

export const STDOUT_FAULTS = ['ENOSPC', 'EFBIG', 'EIO', 'EBADF'] as const;
export type StdoutFault = (typeof STDOUT_FAULTS)[number];

/** How each fault is made, in words (the fault matrix's page). */
export const STDOUT_FAULT_HOW: Record<StdoutFault, string> = {
  ENOSPC: '/dev/full',
  EFBIG: 'a file at ulimit -f',
  EIO: 'an I/O error',
  EBADF: 'fd 1 read-only',
};

const SHIM = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>
static int failing(int fd) {
  const char *e = getenv("SVC_TEST_STDOUT_ERRNO");
  return fd == 1 && e ? atoi(e) : 0;
}
ssize_t write(int fd, const void *buf, size_t n) {
  static ssize_t (*real)(int, const void *, size_t);
  int e = failing(fd);
  if (e) { errno = e; return -1; }
  if (!real) real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
  return real(fd, buf, n);
}
ssize_t writev(int fd, const struct iovec *iov, int n) {
  static ssize_t (*real)(int, const struct iovec *, int);
  int e = failing(fd);
  if (e) { errno = e; return -1; }
  if (!real) real = (ssize_t (*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
  return real(fd, iov, n);
}
`;

let shim: string | undefined;

/** The write(2) shim, compiled once per test process (gcc: scripts/install-system-deps.sh). */
function writeShim(): string {
  if (shim && existsSync(shim)) return shim;
  const dir = tempDir('svc-stdout-shim-');
  writeFileSync(join(dir, 'shim.c'), SHIM);
  execFileSync('gcc', ['-shared', '-fPIC', '-O2', '-o', join(dir, 'shim.so'), join(dir, 'shim.c'), '-ldl']);
  shim = join(dir, 'shim.so');
  return shim;
}

/**
 * A bash script running `svc "$@"` with a stdout that fails with `kind`. EFBIG: the size limit is 4 KiB (bash's
 * `ulimit -f` counts KiB), every other file svc writes (the call log, a conversation) stays below it.
 */
export function stdoutFaultScript(kind: StdoutFault): string {
  switch (kind) {
    case 'ENOSPC':
      return 'svc "$@" > /dev/full';
    case 'EFBIG': {
      const full = join(tempDir('svc-stdout-efbig-'), 'stdout');
      writeFileSync(full, Buffer.alloc(4096));
      return `ulimit -f 4; svc "$@" >> ${shellQuote(full)}`;
    }
    case 'EBADF':
      return 'svc "$@" 1</dev/null';
    case 'EIO': {
      const out = join(tempDir('svc-stdout-eio-'), 'stdout');
      return `export LD_PRELOAD=${shellQuote(writeShim())} SVC_TEST_STDOUT_ERRNO=5; ` + `svc "$@" > ${shellQuote(out)}`;
    }
  }
}

/** The message of each fault on stderr. */
export function stdoutFaultMessage(kind: StdoutFault): RegExp {
  const reason =
    kind === 'EIO' ? 'input/output error' : kind === 'EBADF' ? 'not open for writing' : 'disk full or file too large';
  return new RegExp(`error: could not write to standard output: ${reason} \\(${kind}\\)`);
}
