import type { CommandNode } from '../../core/command.js';

export const children: CommandNode[] = [
  { name: 'serve', summary: 'Serve the emulator on a local port until stopped', load: () => import('./serve.js') },
];
