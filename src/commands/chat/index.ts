import type { CommandNode } from '../../cmdutil/command.js';

export const children: CommandNode[] = [
  { name: 'get', summary: 'Fetch the result of a deferred chat completion', load: () => import('./get.js') },
];
