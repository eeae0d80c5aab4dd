import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Legacy text completions (completions, complete; not for reasoning models)',
  order: 250,
};

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
