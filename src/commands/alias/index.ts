import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Shortcuts for command lines: set, list, delete',
  order: 40,
};

export const children: CommandNode[] = [
  {
    name: 'set',
    summary: 'Make a shortcut for a command line (or a shell line with !)',
    load: () => import('./set.js'),
  },
  {
    name: 'list',
    summary: 'List the aliases and what they expand to',
    aliases: ['ls'],
    load: () => import('./list.js'),
  },
  { name: 'delete', summary: 'Delete aliases', aliases: ['rm'], load: () => import('./delete.js') },
];
