import type { RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Help on a command, or a topic: environment, exit-codes, globals',
  order: 350,
  runs: 'show',
};
