// The tools `svc mcp serve` offers, without the command tree: their tools/list entries as the build wrote them
// (mcp/built-listing.ts), and the command each runs loaded on its tool's first call. Without the build's entries
// (a bare tsc) they are made from the commands at start, as scripts/mcp-listing.mjs makes them.
import type { CommandNode, CommandSpec } from '../../cmdutil/command.js';
import { BUILT_LISTING } from '../../mcp/built-listing.js';
import type { ToolListing } from '../../mcp/listing.js';
import type { LoadedTool } from '../../mcp/run-tool.js';
import type { OfferedTool } from '../../mcp/server.js';
import { TOOLS, type ToolDef } from '../../mcp/tools.js';

/** The spec of the command a tool runs, found in the command tree as `svc` itself finds it. */
async function specOf(words: string[]): Promise<CommandSpec> {
  const { rootCommands } = await import('../index.js');
  let level: CommandNode[] = rootCommands;
  let node: CommandNode | undefined;
  for (const [i, w] of words.entries()) {
    node = level.find((n) => n.name === w);
    if (!node) throw new Error(`no command svc ${words.join(' ')}`);
    if (i < words.length - 1) level = (await node.children?.()) ?? [];
  }
  if (!node?.load) throw new Error(`svc ${words.join(' ')} is not a command`);
  return (await node.load()).default;
}

async function loadedTool(def: ToolDef): Promise<LoadedTool> {
  const [{ loadTool }, spec] = await Promise.all([import('../../mcp/run-tool.js'), specOf(def.command)]);
  return loadTool(def, spec);
}

async function listingOf(tool: LoadedTool): Promise<ToolListing> {
  const { describeTool } = await import('../../mcp/listing.js');
  return describeTool(tool);
}

/** The tools offered, each loading its command once, on first use. */
export function offeredTools(defs: ToolDef[]): Promise<OfferedTool[]> {
  return Promise.all(
    defs.map(async (def) => {
      let loaded: Promise<LoadedTool> | undefined;
      const load = () => (loaded ??= loadedTool(def));
      return { def, load, listing: BUILT_LISTING?.[def.name] ?? (await listingOf(await load())) };
    }),
  );
}

/** Every tool's entry, made from its command (what the build writes into dist/mcp/built-listing.js). */
export async function listingFromCommands(): Promise<Record<string, ToolListing>> {
  const entries = await Promise.all(TOOLS.map(async (def) => [def.name, await listingOf(await loadedTool(def))]));
  return Object.fromEntries(entries);
}
