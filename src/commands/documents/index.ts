import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Search the documents of collections',
  order: 280,
};

export const children: CommandNode[] = [
  { name: 'search', summary: 'Search the documents of one or more collections', load: () => import('./search.js') },
];
