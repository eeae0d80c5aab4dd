import type { RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Print a shell completion script (bash, zsh, fish)',
  order: 140,
  runs: 'script',
};
