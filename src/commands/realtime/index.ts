import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Realtime voice sessions and their client secrets',
  order: 180,
};

export const children: CommandNode[] = [
  {
    name: 'client-secret',
    summary: 'Create an ephemeral client secret for browser-side realtime sessions',
    load: () => import('./client-secret.js'),
  },
  {
    name: 'talk',
    summary: 'Talk with the model in real time (microphone and speaker, or files and pipes)',
    load: () => import('./talk.js'),
  },
];
