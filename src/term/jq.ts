// --jq EXPR: real jq (jq 1.7 compiled to WebAssembly, the jq-web package) applied to every JSON value a command
// prints with --json. Loaded only when --jq is given (~25 ms). A compile error is a usage error (exit 2, checked
// before anything is sent); a runtime error stops the command (exit 1), as in gh.
import type jqWebExport from 'jq-web';
import { UsageError } from '../core/errors.js';

interface JqWeb {
  raw(input: string, filter: string, flags?: string[]): string;
}

export interface JqFilter {
  readonly expression: string;
  /** jq's output for one input value: strings raw, other values compact (or indented when `pretty`) */
  apply(value: unknown, pretty: boolean): string;
}

/** jq-web prefixes its errors with "Non-zero exit code: N"; jq exits 3 on a compile error, 5 on a runtime error. */
function jqError(err: unknown): { exit: number; message: string } {
  const text = err instanceof Error ? err.message : String(err);
  const m = /^Non-zero exit code: (\d+)\n?/.exec(text);
  const message = (m ? text.slice(m[0].length) : text)
    .replace(/^jq: /gm, '')
    .replace(/ \(at inputString:\d+\)/g, '')
    .replace(/\s+$/, '');
  return { exit: m ? Number(m[1]) : 1, message };
}

export async function compileJq(expression: string): Promise<JqFilter> {
  if (expression.trim() === '') throw new UsageError('--jq: an empty expression; use . for the whole value');
  // required, not imported: the package's export is a promise, and a module namespace with a `then` (as some
  // loaders build for it) cannot be awaited
  const { createRequire } = await import('node:module');
  const jq: JqWeb = await (createRequire(import.meta.url)('jq-web') as typeof jqWebExport);
  try {
    jq.raw('null', expression, ['-c']);
  } catch (err) {
    const e = jqError(err);
    if (e.exit === 3)
      throw new UsageError(
        `--jq: ${JSON.stringify(expression)} is not a valid jq expression: ${e.message.split('\n')[0]}`,
      );
    // any other failure on a null input is a runtime matter of that input, not of the expression
  }
  return {
    expression,
    apply(value, pretty) {
      try {
        // nothing selected: jq-web gives undefined
        return jq.raw(JSON.stringify(value), expression, pretty ? ['-r'] : ['-r', '-c']) ?? '';
      } catch (err) {
        throw new Error(`--jq: ${jqError(err).message}`);
      }
    },
  };
}
