import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Generate, edit and extend videos; wait for and download them',
  order: 110,
};

export const children: CommandNode[] = [
  {
    name: 'generate',
    summary: 'Start a video from a prompt (optionally wait and download it)',
    aliases: ['gen'],
    load: () => import('./generate.js'),
  },
  { name: 'edit', summary: 'Edit a video with a prompt', load: () => import('./edit.js') },
  { name: 'extend', summary: 'Extend a video with a prompt', load: () => import('./extend.js') },
  { name: 'get', summary: 'Show the status of a video request', load: () => import('./get.js') },
  { name: 'wait', summary: 'Wait for a video request, then download the video', load: () => import('./wait.js') },
];
