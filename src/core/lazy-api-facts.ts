// svc-formats/api-facts (a ~17 kB bundle chunk, ~2.5 ms to load without a code cache) read when a flag's allowed
// values are first needed (the flag given, help, completion), not when a command's module loads: `svc chat hi`
// checks none of its lists. A synchronous require, so that a flag's parser can ask for the list.
// node:module through getBuiltinModule, not an import: the bundle keeps an import of a built-in, and node:module
// (with the source map module it loads) would load in every command line for the unbundled case's createRequire.
import type * as ApiFacts from 'svc-formats/api-facts';

/** Replaced with true by scripts/bundle.mjs: there require() loads the chunk of api-facts. */
declare const __SVC_BUNDLE__: boolean | undefined;

let facts: typeof ApiFacts | undefined;

export function apiFacts(): typeof ApiFacts {
  facts ??=
    typeof __SVC_BUNDLE__ === 'undefined'
      ? (process.getBuiltinModule('node:module').createRequire(import.meta.url)(
          'svc-formats/api-facts',
        ) as typeof ApiFacts)
      : (require('svc-formats/api-facts') as typeof ApiFacts);
  return facts;
}
