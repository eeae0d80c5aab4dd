// --approve: a yes on the terminal before each tool call a model makes (--tool-cmd, --mcp); a no is told to the
// model. Where nobody can be asked (--no-input, SVC_NO_INPUT, CI, stdin not a terminal) the flag is refused, exit 2,
// before anything starts or is sent.
import { UsageError } from '../core/errors.js';
import type { Context } from '../runtime/context.js';
import { noInputReason, refusePrompt } from '../runtime/no-input.js';
import { readLine } from './confirm.js';
import type { PendingCall } from './local-tools.js';

export type Approver = (call: PendingCall) => Promise<boolean>;

export function approver(ctx: Pick<Context, 'globals' | 'env' | 'streams'>): Approver {
  const noInput = noInputReason(ctx.globals, ctx.env);
  if (noInput) refusePrompt(noInput, '--approve asks before each tool call', 'leave --approve out to run them');
  if (!ctx.streams.stdin.isTTY)
    throw new UsageError('--approve: stdin is not a terminal to ask on (nothing was sent); leave --approve out');
  return async (call) => {
    ctx.streams.stderr.write(`run ${call.name} ${call.arguments}? [y/N] `);
    const answer = await readLine(ctx.streams.stdin);
    return /^\s*y(es)?\s*$/i.test(answer ?? '');
  };
}
