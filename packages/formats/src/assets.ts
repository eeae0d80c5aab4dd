// Files the code reads by path (WebAssembly modules) come from disk under npm and from the executable's own assets
// in a single executable (scripts/build-exe.mjs), where no file beside the program exists. One helper for both,
// so that no reader has to know which it runs in.

/** Written in as true by scripts/build-exe.mjs (the single executable's bundle); undefined everywhere else. */
declare const __SVC_EXECUTABLE__: boolean | undefined;

/** Whether this is svc or svc-emulator as a single executable (Node's SEA), with no node_modules beside it. */
export const IN_EXECUTABLE = typeof __SVC_EXECUTABLE__ !== 'undefined';

/** The assets by name, as scripts/build-exe.mjs stores them in the executable. */
export const ASSETS = {
  /** speexdsp's echo canceller (assets/speexdsp/aec.wasm of svc-cli) */
  aec: 'speexdsp/aec.wasm',
  /** jq compiled to WebAssembly (jq-web's jq.wasm), for --jq */
  jq: 'jq-web/jq.wasm',
  /** the API document (svc-emulator's spec/openapi.json), which the emulator serves and checks against */
  openapi: 'svc-emulator/openapi.json',
} as const;

/** An asset's bytes: the executable's copy there, else the file `diskPath()` names (a missing one throws ENOENT). */
export function readAsset(name: (typeof ASSETS)[keyof typeof ASSETS], diskPath: () => string): Buffer<ArrayBuffer> {
  if (IN_EXECUTABLE) return Buffer.from(process.getBuiltinModule('node:sea').getAsset(name));
  return process.getBuiltinModule('node:fs').readFileSync(diskPath());
}
