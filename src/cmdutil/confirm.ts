// The one confirmation rule for every irreversible or billable operation (delete, release, buy, provision,
// revoke; listed in docs/scripting.md): on a terminal a question on stderr and one line read from stdin; off a
// terminal the answer must be given up front with -y/--yes, otherwise a UsageError (exit 2) before anything is
// sent. A declined question is a CancelledError (exit 3). Every such command takes YES_OPTION and calls confirm()
// before its first request. With --no-input (SVC_NO_INPUT, CI) the question is not asked even on a terminal.
import { CancelledError, UsageError } from '../core/errors.js';
import type { Context } from '../runtime/context.js';
import type { OptionSpec } from '../core/option-spec.js';
import { noInputReason, refusePrompt } from '../runtime/no-input.js';

/** The flag every confirming command takes. */
export const YES_OPTION = {
  flags: '-y, --yes',
  description: 'do not ask for confirmation (required when stdin is not a terminal)',
} as const satisfies OptionSpec;

export interface ConfirmOptions {
  /** the value of --yes */
  yes?: boolean;
  /** the flag that skips the question (named in the script error) */
  flag?: string;
}

/** Resolves when confirmed; throws UsageError in a script without --yes, CancelledError when declined. */
export async function confirm(
  ctx: Pick<Context, 'streams' | 'out' | 'globals' | 'env'>,
  question: string,
  opts: ConfirmOptions = {},
): Promise<void> {
  if (opts.yes) return;
  const flag = opts.flag ?? '--yes';
  const noInput = noInputReason(ctx.globals, ctx.env);
  if (noInput) refusePrompt(noInput, `${question.replace(/\?$/, '')}: confirmation needed`, `pass ${flag} to confirm`);
  if (!ctx.streams.stdin.isTTY) {
    throw new UsageError(
      `${question.replace(/\?$/, '')}: confirmation needed, and stdin is not a terminal; pass ${flag} to ` +
        `confirm (nothing was sent)`,
    );
  }
  ctx.streams.stderr.write(`${question} [y/N] `);
  const answer = await readLine(ctx.streams.stdin);
  if (answer === undefined || !/^\s*y(es)?\s*$/i.test(answer))
    throw new CancelledError('cancelled: nothing was changed');
}

/** One line from a stream (undefined at its end or once `signal` aborts). Leaves the stream paused for others. */
export function readLine(input: NodeJS.ReadableStream, signal?: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return resolve(undefined);
    let buf = '';
    const onData = (chunk: Buffer | string) => {
      buf += chunk.toString();
      const i = buf.indexOf('\n');
      if (i >= 0) finish(buf.slice(0, i).replace(/\r$/, ''));
    };
    const onEnd = () => finish(buf.length ? buf : undefined);
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onAbort = () => finish(undefined);
    const cleanup = () => {
      signal?.removeEventListener('abort', onAbort);
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onError);
      input.pause();
    };
    const finish = (v: string | undefined) => {
      cleanup();
      resolve(v);
    };
    input.on('data', onData);
    input.on('end', onEnd);
    input.on('error', onError);
    signal?.addEventListener('abort', onAbort, { once: true });
    input.resume();
  });
}
