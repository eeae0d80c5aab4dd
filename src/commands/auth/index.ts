import type { CommandNode } from '../../cmdutil/command.js';

export const children: CommandNode[] = [
  {
    name: 'login',
    summary: 'Store an API key (read from stdin or a hidden prompt) after checking it',
    load: () => import('./login.js'),
  },
  {
    name: 'status',
    summary: 'Show the key in use, its team, flags and ACLs (exit 4 when unusable)',
    load: () => import('./status.js'),
  },
  { name: 'logout', summary: 'Remove the stored API key of the profile', load: () => import('./logout.js') },
];
