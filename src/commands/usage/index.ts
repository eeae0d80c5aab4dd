import type { RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Tokens and dollars spent, by day, model or command (from the call log)',
  order: 330,
  runs: 'show',
};
