// The API document (spec/openapi.json): served at /openapi.json, read by the contract checker (contract.ts). A JSON
// module, loaded on first use: the CLI's bundle carries it inline, the package ships it in spec/.
type Json = Record<string, unknown>;

let documentPromise: Promise<Json> | undefined;

export function loadApiDocument(): Promise<Json> {
  documentPromise ??= import('../../spec/openapi.json', { with: { type: 'json' } }).then(
    (m) => m.default as unknown as Json,
  );
  return documentPromise;
}
