// The tools/list entries the build wrote (scripts/mcp-listing.mjs → dist/mcp/built-listing.js, which `svc mcp serve`
// answers with) are those the commands make now: a flag's range, choices or description changed without a build
// would show here (the build writes them again).
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/files.js';

const dist = (path: string) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

describe('the MCP tool table', () => {
  it("the build's tools/list entries are the ones the commands make, one per tool", async () => {
    const [{ BUILT_LISTING }, { listingFromCommands }, { TOOLS }] = await Promise.all([
      dist('mcp/built-listing.js'),
      dist('commands/mcp/tool-table.js'),
      dist('mcp/tools.js'),
    ]);
    const made = await listingFromCommands();
    expect(Object.keys(made)).toEqual(TOOLS.map((t: { name: string }) => t.name));
    expect(BUILT_LISTING).toEqual(made);
  });

  it("the build's protocol versions are the SDK's (the stdio front answers initialize with them)", async () => {
    const { BUILT_PROTOCOL } = await dist('mcp/built-listing.js');
    const { SUPPORTED_PROTOCOL_VERSIONS, LATEST_PROTOCOL_VERSION } = await import('@modelcontextprotocol/sdk/types.js');
    expect(BUILT_PROTOCOL).toEqual({ supported: SUPPORTED_PROTOCOL_VERSIONS, latest: LATEST_PROTOCOL_VERSION });
  });
});
