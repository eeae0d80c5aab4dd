import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Stored responses: create (streamed), continue (-c), inspect, compact',
  order: 230,
};

export const children: CommandNode[] = [
  {
    name: 'create',
    summary: 'Create a response (streams by default); -c continues the last stored one',
    load: () => import('./create.js'),
  },
  { name: 'get', summary: 'Show a stored response', load: () => import('./get.js') },
  { name: 'delete', summary: 'Delete a stored response', aliases: ['rm'], load: () => import('./delete.js') },
  { name: 'items', summary: 'List the input items of a stored response', load: () => import('./items.js') },
  {
    name: 'compact',
    summary: 'Compact a conversation into one item to pass as the next --input',
    load: () => import('./compact.js'),
  },
];
