import type { CommandNode } from '../../core/command.js';

export const children: CommandNode[] = [
  { name: 'voices', summary: 'List the built-in voices', load: () => import('./voices.js') },
  { name: 'voice', summary: 'Show one voice', load: () => import('./voice.js') },
];
