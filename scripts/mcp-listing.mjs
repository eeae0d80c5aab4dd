// Run by scripts/bundle.mjs: every tool's tools/list entry of `svc mcp serve`, made from the commands of dist/ (their
// option specs), as JSON on stdout. bundle.mjs writes it over dist/mcp/built-listing.js, so that the server answers
// tools/list without loading the commands (src/commands/mcp/tool-table.ts).
const { listingFromCommands } = await import(new URL('../dist/commands/mcp/tool-table.js', import.meta.url).href);
process.stdout.write(JSON.stringify(await listingFromCommands()));
