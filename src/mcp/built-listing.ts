// Every tool's tools/list entry by name, written over this module in dist/ by the build (scripts/bundle.mjs runs
// scripts/mcp-listing.mjs, which makes them from the commands' option specs): `svc mcp serve` then answers tools/list
// without loading the commands its tools run (each is loaded on its tool's first call). Without that step (a bare
// tsc) nothing, and the server makes them from the commands when it starts.
import type { ToolListing } from './listing.js';

export const BUILT_LISTING: Readonly<Record<string, ToolListing>> | undefined = undefined;
