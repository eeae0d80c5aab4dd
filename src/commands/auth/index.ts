import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Log in, check and log out the API key',
  order: 10,
};

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
  {
    name: 'token',
    summary: 'Print the API key in use, for scripts (not on a terminal unless --show)',
    load: () => import('./token.js'),
  },
  { name: 'logout', summary: 'Remove the stored API key of the profile', load: () => import('./logout.js') },
];
