import type { RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Call any endpoint, raw and authenticated',
  order: 130,
  runs: 'request',
};
