import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Chat with a model (streams by default)',
  order: 120,
  runs: 'create',
};

export const children: CommandNode[] = [
  { name: 'get', summary: 'Fetch the result of a deferred chat completion', load: () => import('./get.js') },
];
