import { defineCommand } from '../../cmdutil/command.js';
import { integer } from '../../core/validate.js';
import { TOOL_NAMES, type ToolDef } from '../../mcp/tools.js';

const toolList = (raw: string): string[] =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export default defineCommand({
  description:
    'Each tool runs the svc command of the same action (its checks, its request, its files) under your rules: ' +
    'the profile, the daily budget (budget.daily; a call over it is a tool error and nothing is sent, as with ' +
    '--budget-strict), the call log (each call recorded as `mcp serve TOOL (CLIENT)`). Paths the tools read or ' +
    "write are confined to --root (never svc's own config, data or cache folders); a tool never overwrites a file. " +
    'delete_file is offered only when named in --tools. Over stdio, stdout carries MCP messages only; notes go to ' +
    'stderr. docs/mcp.md has the snippets for MCP hosts.',
  options: [
    {
      flags: '--http <port>',
      description: 'streamable HTTP on 127.0.0.1:PORT (0: any free port) instead of stdio; bearer token SVC_MCP_TOKEN',
      parse: integer({ min: 0, max: 65535 }),
    },
    {
      flags: '--tools <names>',
      description: `offer only these tools (comma-separated): ${TOOL_NAMES.join(', ')}`,
      parse: toolList,
    },
    { flags: '--read-only', description: 'offer only the tools that change nothing (no files written or uploaded)' },
    {
      flags: '--root <dir>',
      description:
        'the folder tools may read and write files in (default: the working folder, but not / or your home); ' +
        "never svc's own folders",
    },
  ],
  examples: [
    'svc mcp serve',
    'svc mcp serve --read-only --tools generate_text,list_models',
    'svc mcp serve --root ~/project/assets',
    'SVC_MCP_TOKEN=… svc mcp serve --http 8765',
  ],
  async run(ctx, _args, opts) {
    const [{ chooseTools }, { Root, rootFolder }, { offeredTools }] = await Promise.all([
      import('../../mcp/server.js'),
      import('../../mcp/root.js'),
      import('./tool-table.js'),
    ]);
    const chosen: ToolDef[] = chooseTools(opts.tools, !!opts.readOnly);
    const root = new Root(rootFolder(opts.root, process.cwd(), ctx.env), ctx.env);
    const tools = await offeredTools(chosen);
    if (opts.http !== undefined) {
      const { serveHttp } = await import('../../mcp/http.js');
      await serveHttp(ctx, { tools, root }, opts.http);
    } else {
      const { serveStdio } = await import('../../mcp/server.js');
      await serveStdio(ctx, { tools, root });
    }
    return 0;
  },
});
