// TypeScript's compiler API for the tests that read the source as data (test/helpers/source-graph.ts,
// test/repo/function-length.test.ts). typescript is one CommonJS file of ~9 MB: imported as an ES module, Node first
// scans all of it for the names it exports (~1 s of CPU in each worker that loads it); required, it is only run.
import { createRequire } from 'node:module';
import type * as TS from 'typescript';

export type { TS };

let loaded: typeof TS | undefined;

/** typescript, required on the first call */
export const typescript = (): typeof TS => (loaded ??= createRequire(import.meta.url)('typescript'));
