import type { CommandNode } from '../../cmdutil/command.js';

export const children: CommandNode[] = [
  { name: 'save', summary: 'Save text (a file or stdin) as a named fragment for -f', load: () => import('./save.js') },
  { name: 'list', summary: 'List the saved fragments', aliases: ['ls'], load: () => import('./list.js') },
  { name: 'show', summary: 'Print a fragment', load: () => import('./show.js') },
  { name: 'delete', summary: 'Delete fragments', aliases: ['rm'], load: () => import('./delete.js') },
];
