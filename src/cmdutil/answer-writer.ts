// A streamed answer to stdout: rendered as Markdown block by block on a terminal with colour (unless --json or
// --raw; pipes, --json, --raw and NO_COLOR get the text as the model wrote it — docs/text.md), raw otherwise.
// Pieces keep their order even while a finished block is still being printed (highlighting loads a language on
// first use). Shared by chat, messages and responses create.
import type { Context } from '../runtime/context.js';
import { readEnv } from '../core/environment.js';
import type { MarkdownStream } from '../term/markdown.js';
import { CodeBlockExtractor } from '../term/code-blocks.js';
import { UsageError } from '../core/errors.js';

/** The Markdown renderer for a streamed answer, or undefined when the text goes out as written. */
async function answerRenderer(ctx: Context, raw: boolean | undefined): Promise<MarkdownStream | undefined> {
  if (raw || ctx.out.json || !ctx.out.stdoutIsTTY || !ctx.out.colorStdout) return undefined;
  const { MarkdownStream } = await import('../term/markdown.js');
  // a terminal that can be redrawn shows the block in progress as it arrives (docs/text.md)
  const columns = () => ctx.streams.stdout.columns ?? 0;
  const redrawable = columns() > 0 && readEnv(ctx.env, 'TERM') !== 'dumb';
  const live = redrawable
    ? { write: (t: string) => ctx.out.write(t), control: (s: string) => ctx.out.control(s), columns }
    : undefined;
  return new MarkdownStream(ctx.out.c, (text) => ctx.out.write(text), live, columns);
}

export interface AnswerWriter {
  /** a piece of the answer as it arrives (callbacks that cannot wait) */
  write(piece: string): void;
  /** everything written is printed: the block in progress too (also after a drop or Ctrl-C) */
  end(): Promise<void>;
}

/** Runs with -x/--extract (first) or --extract-last (last): their answer is only that code block. */
const extracting = new WeakMap<Context, 'first' | 'last'>();

/**
 * -x/--extract, --extract-last: check the flags against the command line (not with --json, which prints the API's
 * events, nor a REPL) and make this run's answers the code block alone (docs/text.md).
 */
export function extractFlags(ctx: Context, opts: { extract?: boolean; extractLast?: boolean; interactive?: boolean }) {
  if (!opts.extract && !opts.extractLast) return;
  const flag = opts.extract ? '-x/--extract' : '--extract-last';
  if (opts.extract && opts.extractLast) throw new UsageError('-x/--extract: not together with --extract-last');
  if (ctx.out.json) throw new UsageError(`${flag}: not together with --json or --jq (they print what the API sent)`);
  if (opts.interactive) throw new UsageError(`${flag}: not with -i (a REPL prints each answer whole)`);
  extracting.set(ctx, opts.extract ? 'first' : 'last');
}

/** An answer known whole (not streamed): printed as a line, or its code block with -x. */
export function printAnswer(ctx: Context, text: string): void {
  const which = extracting.get(ctx);
  if (!which) {
    if (text) ctx.out.line(text.replace(/\n$/, ''));
    return;
  }
  const x = new CodeBlockExtractor(which);
  ctx.out.write(x.push(text) + x.end());
}

/** -x: the code block printed once known (term/code-blocks.ts), as written (never as Markdown). */
function extractingWriter(ctx: Context, which: 'first' | 'last'): AnswerWriter {
  const x = new CodeBlockExtractor(which);
  return {
    write: (piece) => ctx.out.write(x.push(piece)),
    end: async () => ctx.out.write(x.end()),
  };
}

export async function answerWriter(ctx: Context, raw: boolean | undefined): Promise<AnswerWriter> {
  const which = extracting.get(ctx);
  if (which) return extractingWriter(ctx, which);
  const markdown = await answerRenderer(ctx, raw);
  if (!markdown) {
    return {
      write: (piece) => {
        if (!ctx.out.json) ctx.out.write(piece);
      },
      end: async () => {},
    };
  }
  let printing: Promise<void> = Promise.resolve();
  return {
    write: (piece) => {
      printing = printing.then(() => markdown.push(piece));
    },
    end: async () => {
      await printing.catch(() => undefined);
      await markdown.end();
    },
  };
}
