import type { RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Split text into tokens (id, token, bytes) or count them',
  order: 270,
  runs: 'create',
};
