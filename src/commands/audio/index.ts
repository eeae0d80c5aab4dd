import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Sound devices: list them, test the microphone and the speaker',
  order: 220,
};

export const children: CommandNode[] = [
  {
    name: 'devices',
    summary: 'List the microphones and speakers (inputs and outputs, the default marked)',
    load: () => import('./devices.js'),
  },
  {
    name: 'test',
    summary: 'Record two seconds from the microphone and play them back, with a level meter',
    load: () => import('./test.js'),
  },
];
