import type { CommandNode } from '../../cmdutil/command.js';

export const children: CommandNode[] = [
  { name: 'search', summary: 'Search the documents of one or more collections', load: () => import('./search.js') },
];
