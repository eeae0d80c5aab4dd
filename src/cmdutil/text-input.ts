// The text a generation command sends: its argument words joined with piped stdin.
import type { Context } from '../runtime/context.js';
import { UsageError } from '../core/errors.js';

/** Runs whose stdin was read already (into a template's prompt): the prompt is read from their words alone. */
const stdinRead = new WeakSet<Context>();

/** Stdin was read into the prompt (cmdutil/templates.ts): later reads of the prompt take the words only. */
export function markStdinRead(ctx: Context): void {
  stdinRead.add(ctx);
}

/**
 * The words, then a blank line, then stdin (when piped); trailing whitespace of stdin dropped. With words, stdin the
 * shell that started svc reads too (a `while read` loop's) is left to it (runtime/stdin.ts, docs/scripting.md).
 */
export async function joinWithStdin(
  ctx: Context,
  words: string[],
  readStdin = !ctx.streams.stdin.isTTY,
): Promise<string> {
  const fromArgs = words.join(' ').trim();
  // read already (a template's {{input}}): svc itself moved the file's offset, no loop did
  if (stdinRead.has(ctx)) readStdin = false;
  if (readStdin && fromArgs && ctx.streams.stdin === process.stdin && !ctx.globals.withStdin) {
    const { stdinBelongsElsewhere } = await import('../runtime/stdin.js');
    const why = stdinBelongsElsewhere();
    if (why) {
      ctx.out.info(`stdin left unread: ${why}; --with-stdin joins it to the prompt anyway`);
      readStdin = false;
    }
  }
  const fromStdin = readStdin ? (await ctx.readStdin()).replace(/\s+$/, '') : '';
  return fromArgs && fromStdin ? `${fromArgs}\n\n${fromStdin}` : fromArgs || fromStdin;
}

/** The prompt, or a usage error that shows how to give one to `command` (e.g. `svc messages`). */
export async function readPrompt(ctx: Context, words: string[], command: string): Promise<string> {
  const prompt = await joinWithStdin(ctx, words);
  if (!prompt) throw new UsageError(`no prompt: give it as arguments (${command} "…") or pipe text on stdin`);
  return prompt;
}
