// A tool's entry in tools/list (its name, schema and annotations), made from the command it runs. Computed when the
// build writes every entry (scripts/mcp-listing.mjs → built-listing.ts in dist/) or, without that step, when the
// server starts.
import { inputSchema, type LoadedTool } from './run-tool.js';

/** The MCP description of a tool: its schema and honest annotations. */
export function describeTool(t: LoadedTool) {
  return {
    name: t.def.name,
    title: t.def.title,
    description: t.def.description,
    inputSchema: inputSchema(t),
    // a list tool answers `{items: [...]}` as structured content too
    ...(t.def.result === 'list'
      ? { outputSchema: { type: 'object', properties: { items: { type: 'array' } }, required: ['items'] } }
      : {}),
    annotations: {
      title: t.def.title,
      readOnlyHint: t.def.kind === 'read',
      destructiveHint: t.def.kind === 'destructive',
      idempotentHint: !!t.def.idempotent,
      // every tool reaches the API, an open world
      openWorldHint: true,
    },
  };
}

export type ToolListing = ReturnType<typeof describeTool>;
