import type { CommandNode } from '../../cmdutil/command.js';

export const children: CommandNode[] = [
  {
    name: 'completions',
    summary: 'Text completion (POST /v1/completions; not for reasoning models)',
    load: () => import('./completions.js'),
  },
  {
    name: 'complete',
    summary: 'Human/assistant completion (POST /v1/complete; not for reasoning models)',
    load: () => import('./complete.js'),
  },
];
