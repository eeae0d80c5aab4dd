import type { RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Check the setup: config, key, base URL, DNS, proxy, TLS, clock, audio tools, completion',
  order: 360,
  runs: 'show',
};
