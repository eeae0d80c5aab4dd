import type { RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Embed texts: one vector per input, in input order',
  order: 260,
  runs: 'create',
};
