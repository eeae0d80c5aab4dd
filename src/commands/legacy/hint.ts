import { ApiError } from '../../core/errors.js';

/** The server's message stays; a hint is added when a reasoning model was refused. */
export function withReasoningHint(err: unknown): unknown {
  if (err instanceof ApiError && err.status === 400 && /reasoning/i.test(err.message)) {
    return new ApiError(
      err.status,
      `${err.message}; with svc: \`svc chat\` or \`svc responses create\``,
      err.code,
      err.requestId,
    );
  }
  return err;
}
