// What `svc mcp serve` answers a session's start with, written over this module in dist/ by the build
// (scripts/bundle.mjs runs scripts/mcp-listing.mjs): every tool's tools/list entry by name, made from the commands'
// option specs, and the MCP protocol versions of the SDK. The server then answers initialize and tools/list without
// loading the commands its tools run (each is loaded on its tool's first call) or the SDK (stdio-front.ts). Without
// that step (a bare tsc) nothing: the server makes the entries from the commands and lets the SDK answer.
import type { ToolListing } from './listing.js';

export const BUILT_LISTING: Readonly<Record<string, ToolListing>> | undefined = undefined;

/** the SDK's SUPPORTED_PROTOCOL_VERSIONS and LATEST_PROTOCOL_VERSION */
export const BUILT_PROTOCOL: { supported: readonly string[]; latest: string } | undefined = undefined;
