import type { RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Send a prompt in the messages convention (POST /v1/messages)',
  order: 240,
  runs: 'create',
};
