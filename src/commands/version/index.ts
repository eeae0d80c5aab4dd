import type { RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Print the version (--json: with the Node.js version and platform)',
  order: 370,
  runs: 'show',
};
