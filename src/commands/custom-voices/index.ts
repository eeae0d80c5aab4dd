import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Create and manage custom voices from a reference clip',
  order: 190,
};

export const children: CommandNode[] = [
  {
    name: 'create',
    summary: 'Create a custom voice from a short reference clip',
    load: () => import('./create.js'),
  },
  { name: 'list', summary: 'List the custom voices of the team', aliases: ['ls'], load: () => import('./list.js') },
  { name: 'get', summary: 'Show one custom voice', load: () => import('./get.js') },
  { name: 'update', summary: 'Rename a custom voice', load: () => import('./update.js') },
  {
    name: 'delete',
    summary: 'Delete a custom voice (asks to confirm)',
    aliases: ['rm'],
    load: () => import('./delete.js'),
  },
  { name: 'download', summary: 'Download the reference clip of a custom voice', load: () => import('./download.js') },
];
