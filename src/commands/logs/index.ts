import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'The local log of API calls: list, search, show, delete',
  order: 320,
  runs: 'list',
};

export const children: CommandNode[] = [
  { name: 'list', summary: 'List and search the logged API calls', aliases: ['ls'], load: () => import('./list.js') },
  { name: 'show', summary: 'Print one logged call (a conversation turn readably)', load: () => import('./show.js') },
  {
    name: 'rm',
    summary: 'Delete logged calls (by id, by age, or all)',
    aliases: ['delete'],
    load: () => import('./rm.js'),
  },
];
