// undici parses HTTP with llhttp compiled to WebAssembly, compiled on the first connection: ~2 ms of the main
// thread (the module, then each function on its first call) in every request command. The bundle ships the
// parser as a file (scripts/bundle.mjs) and its copy of undici takes a module compiled beforehand
// (Symbol.for('svc.llhttpModule')); here it is compiled on V8's worker threads while undici's own code loads.
// Without the bundle (or its file), undici compiles the parser itself, as it always does.
import { readFileSync } from 'node:fs';

/** the compiled module, for undici's client (scripts/bundle.mjs) */
const COMPILED = Symbol.for('svc.llhttpModule');
/** where the bundle's parser is: set by bin/svc.cjs when it runs the bundle */
const FILE = Symbol.for('svc.llhttpFile');

/**
 * Start compiling the parser on V8's worker threads. Call it once V8's flags for WebAssembly are set (eager
 * compilation, so that the whole module is compiled there). Returns a promise that settles when the module is
 * ready for undici or the compile has failed (then undici compiles its own), or undefined when nothing was started.
 * V8 hands the work to its worker threads from a task of the main thread: let the event loop turn once soon after.
 */
export function compileParserInBackground(): Promise<void> | undefined {
  const global = globalThis as Record<symbol, unknown>;
  const file = global[FILE];
  if (typeof file !== 'string' || global[COMPILED]) return undefined;
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = readFileSync(file) as Uint8Array<ArrayBuffer>;
  } catch {
    return undefined;
  }
  return WebAssembly.compile(bytes).then(
    (module) => {
      global[COMPILED] = module;
    },
    () => {
      // undici compiles its own (and reports what is wrong with it)
    },
  );
}
