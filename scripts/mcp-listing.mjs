// Run by scripts/bundle.mjs: what `svc mcp serve` answers a session's start with, as JSON on stdout: every tool's
// tools/list entry, made from the commands of dist/ (their option specs), and the MCP SDK's protocol versions.
// bundle.mjs writes them over dist/mcp/built-listing.js (src/commands/mcp/tool-table.ts, src/mcp/stdio-front.ts).
const { listingFromCommands } = await import(new URL('../dist/commands/mcp/tool-table.js', import.meta.url).href);
const { SUPPORTED_PROTOCOL_VERSIONS, LATEST_PROTOCOL_VERSION } = await import('@modelcontextprotocol/sdk/types.js');
process.stdout.write(
  JSON.stringify({
    listing: await listingFromCommands(),
    protocol: { supported: SUPPORTED_PROTOCOL_VERSIONS, latest: LATEST_PROTOCOL_VERSION },
  }),
);
