import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: "Serve the API's actions to MCP hosts (coding agents, editors)",
  order: 290,
};

export const children: CommandNode[] = [
  {
    name: 'serve',
    summary: "Serve the API's actions as MCP tools to coding agents (stdio, or HTTP on loopback)",
    load: () => import('./serve.js'),
  },
];
