import type { RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Show the caller identity behind the API key',
  order: 20,
  runs: 'show',
};
