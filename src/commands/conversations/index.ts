import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Chat and messages conversations kept locally (list, show, delete)',
  order: 310,
};

export const children: CommandNode[] = [
  {
    name: 'list',
    summary: 'List the chat and messages conversations kept locally',
    aliases: ['ls'],
    load: () => import('./list.js'),
  },
  {
    name: 'show',
    summary: 'Print a conversation (default: the last one of this profile, of chat or messages)',
    load: () => import('./show.js'),
  },
  { name: 'delete', summary: 'Delete conversations', aliases: ['rm'], load: () => import('./delete.js') },
];
