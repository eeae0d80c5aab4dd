// The API document (spec/openapi.json): served at /openapi.json, read by the contract checker (contract.ts). A JSON
// module, loaded on first use: the CLI's bundle carries it inline, the package ships it in spec/; in a single
// executable it is one of the executable's assets (scripts/build-exe.mjs leaves the module out of its script).
import { ASSETS, IN_EXECUTABLE, readAsset } from 'svc-formats/assets';

type Json = Record<string, unknown>;

let documentPromise: Promise<Json> | undefined;

export function loadApiDocument(): Promise<Json> {
  documentPromise ??= IN_EXECUTABLE
    ? Promise.resolve().then(() => JSON.parse(readAsset(ASSETS.openapi, () => '').toString('utf8')) as Json)
    : import('../../spec/openapi.json', { with: { type: 'json' } }).then((m) => m.default as unknown as Json);
  return documentPromise;
}
