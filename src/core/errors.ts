// Error types and the one mapping from errors to exit codes (used only by src/cli.ts).

export { ExitCode } from './exit-codes.js';
import { ExitCode } from './exit-codes.js';

/** Bad input found before anything was sent: exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A call that may cost was refused before sending: the budget has no room for its worst case (exit 8). */
export class BudgetError extends Error {
  override name = 'BudgetError';
}

/** The user declined a confirmation, or a confirmation was needed in a script: exit 3 or 2. */
export class CancelledError extends Error {
  override name = 'CancelledError';
}

/** Ctrl-C: the command stopped at the user's request. */
export class InterruptedError extends Error {
  override name = 'InterruptedError';
  constructor() {
    super('interrupted');
  }
}

/**
 * A check that needed the server's answer first (a file's remaining lifetime, its size) refused the request:
 * something was sent, so exit 1, not the "nothing was sent" 2 of a UsageError.
 */
export class PreconditionError extends Error {
  override name = 'PreconditionError';
}

/** A non-2xx reply from the API (or an error event on a stream / WebSocket). */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly requestId?: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** The server replied with something that is not what the protocol says (a missing field, bad JSON). */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
  constructor(
    message: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

/**
 * A stream or session that ended without its end marker (`[DONE]`/finish_reason, response.completed, message_stop,
 * audio.done, transcript.done, response.done): what arrived was kept, but it is incomplete (exit 1).
 */
export class IncompleteError extends ProtocolError {
  override name = 'IncompleteError';
}

/** No API key is configured: exit 4, as for a key the server refuses. */
export class MissingKeyError extends Error {
  override name = 'MissingKeyError';
  constructor(
    message = 'no API key: run `svc auth login`, or set SVC_API_KEY (or use --emulator for the local emulator)',
  ) {
    super(message);
  }
}

/** errno codes of a failed file operation and what they mean to a person. */
const FILE_ERRNO: Record<string, string> = {
  EFBIG: 'disk full or file too large',
  ENOSPC: 'disk full or file too large',
  EDQUOT: 'disk full or file too large',
  EPIPE: 'the reader closed the pipe',
  EIO: 'input/output error',
  EBADF: 'not open for writing',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EEXIST: 'something is already in the way (a file where a folder is needed?)',
  ENOENT: 'no such file or directory',
};

/** What a failed file operation means ("disk full or file too large (EFBIG)"). */
export function fileErrorReason(code: string | undefined, cause?: unknown): string {
  const what = code ? FILE_ERRNO[code] : undefined;
  if (what) return `${what} (${code})`;
  return code ?? (cause instanceof Error ? cause.message : String(cause));
}

/** True for an errno error of the file system (not of a socket or a connection). */
export function isFileSystemError(err: unknown): err is NodeJS.ErrnoException {
  const e = err as NodeJS.ErrnoException | undefined;
  return (
    !!e &&
    typeof e.code === 'string' &&
    e.code in FILE_ERRNO &&
    typeof e.syscall === 'string' &&
    !/^(connect|getaddrinfo|read|spawn)/.test(e.syscall)
  );
}

/**
 * A write to a file the user named failed (disk full, file too large, permission): its own message, never "the
 * connection was lost". `code` is the errno code (EFBIG, ENOSPC, EACCES, …).
 */
export class FileWriteError extends Error {
  override name = 'FileWriteError';
  constructor(
    readonly path: string,
    readonly code: string | undefined,
    override readonly cause?: unknown,
  ) {
    super(`cannot write ${path}: ${fileErrorReason(code, cause)}`);
  }
}

/**
 * A write to standard output failed (a full disk under `> out.md`, a file past its size limit, a terminal gone, a
 * stdout not open for writing): exit 1, "could not write to standard output: disk full or file too large (ENOSPC)".
 * A FileWriteError, so every layer that keeps a local write error as such (never "the connection was lost") keeps
 * this one too. EPIPE (the reader closed the pipe: `| head`) is not reported: that run ends quietly.
 */
export class StdoutWriteError extends FileWriteError {
  override name = 'StdoutWriteError';
  constructor(code: string | undefined, cause?: unknown) {
    super('standard output', code, cause);
    this.message = `could not write to standard output: ${fileErrorReason(code, cause)}`;
  }
}

/** The connection failed or dropped (before or during a reply). */
export class NetworkError extends Error {
  override name = 'NetworkError';
  constructor(
    message: string,
    readonly requestId?: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

export function exitCodeForStatus(status: number, message = ''): number {
  if (status === 401 || status === 403) return ExitCode.auth;
  // The API answers 400 for a well-formed but unknown key.
  if (status === 400 && /api[ -]?key/i.test(message)) return ExitCode.auth;
  if (status === 404) return ExitCode.notFound;
  if (status === 429) return ExitCode.rateLimited;
  if (status >= 500) return ExitCode.server;
  return ExitCode.error;
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return ExitCode.usage;
  if (err instanceof CancelledError) return ExitCode.cancelled;
  if (err instanceof InterruptedError) return ExitCode.interrupted;
  if (err instanceof MissingKeyError) return ExitCode.auth;
  if (err instanceof BudgetError) return ExitCode.budget;
  if (err instanceof ApiError) return exitCodeForStatus(err.status, err.message);
  return ExitCode.error;
}

/** One line (or a few) for stderr, naming the request id when there is one. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    const parts = [`${err.message}`];
    const tail: string[] = [`HTTP ${err.status}`];
    if (err.code) tail.push(err.code);
    if (err.requestId) tail.push(`request id ${err.requestId}`);
    return `${parts.join('')} (${tail.join(', ')})`;
  }
  if (err instanceof ProtocolError || err instanceof NetworkError) {
    return err.requestId ? `${err.message} (request id ${err.requestId})` : err.message;
  }
  if (isFileSystemError(err)) return `${err.path ?? err.syscall}: ${fileErrorReason(err.code, err)}`;
  if (err instanceof RangeError && /call stack/i.test(err.message)) return 'the data is nested too deeply to handle';
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Parse an error reply body: JSON `{code, error}`, `{error: {message}}`, or plain text (422). */
export function parseErrorBody(status: number, text: string, contentType = ''): { message: string; code?: string } {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || contentType.includes('json')) {
    try {
      const body = JSON.parse(trimmed) as Record<string, unknown>;
      const err = body.error;
      let message: string | undefined;
      let code = typeof body.code === 'string' ? body.code : undefined;
      if (typeof err === 'string') message = err;
      else if (err && typeof err === 'object') {
        const e = err as Record<string, unknown>;
        if (typeof e.message === 'string') message = e.message;
        if (!code && typeof e.code === 'string') code = e.code;
        if (!code && typeof e.type === 'string') code = e.type;
      }
      if (!message && typeof body.message === 'string') message = body.message;
      if (message) return { message, code };
    } catch {
      // not JSON after all: fall through to plain text
    }
  }
  return { message: trimmed || `HTTP ${status} with an empty body` };
}
