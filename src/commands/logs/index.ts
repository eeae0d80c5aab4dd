import type { CommandNode } from '../../cmdutil/command.js';

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
