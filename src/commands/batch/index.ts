import type { RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Send a file of rows to one endpoint: resumable, within a budget and the rate limit',
  order: 300,
  runs: 'run',
};
