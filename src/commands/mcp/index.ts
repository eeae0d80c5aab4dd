import type { CommandNode } from '../../cmdutil/command.js';

export const children: CommandNode[] = [
  {
    name: 'serve',
    summary: "Serve the API's actions as MCP tools to coding agents (stdio, or HTTP on loopback)",
    load: () => import('./serve.js'),
  },
];
