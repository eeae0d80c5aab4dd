import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Generate and edit images (saved to files)',
  order: 100,
};

export const children: CommandNode[] = [
  {
    name: 'generate',
    summary: 'Generate images from a prompt and save them',
    aliases: ['gen'],
    load: () => import('./generate.js'),
  },
  { name: 'edit', summary: 'Edit an image with a prompt and save the results', load: () => import('./edit.js') },
];
