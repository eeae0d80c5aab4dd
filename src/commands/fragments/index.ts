import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Saved text for -f (save, list, show, delete)',
  order: 60,
};

export const children: CommandNode[] = [
  { name: 'save', summary: 'Save text (a file or stdin) as a named fragment for -f', load: () => import('./save.js') },
  { name: 'list', summary: 'List the saved fragments', aliases: ['ls'], load: () => import('./list.js') },
  { name: 'show', summary: 'Print a fragment', load: () => import('./show.js') },
  { name: 'delete', summary: 'Delete fragments', aliases: ['rm'], load: () => import('./delete.js') },
];
