import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'List and inspect models and their prices',
  order: 70,
};

export const children: CommandNode[] = [
  {
    name: 'list',
    summary: 'List models (all, or one kind with prices)',
    aliases: ['ls'],
    load: () => import('./list.js'),
  },
  { name: 'get', summary: 'Show one model', load: () => import('./get.js') },
];
