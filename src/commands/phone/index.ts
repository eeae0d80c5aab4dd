import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Buy, assign and release phone numbers (v1), register SIP numbers (v2)',
  order: 160,
};

export const children: CommandNode[] = [
  { name: 'buy', summary: 'Buy a US phone number in an area code (asks to confirm)', load: () => import('./buy.js') },
  { name: 'list', summary: 'List the phone numbers of the team', aliases: ['ls'], load: () => import('./list.js') },
  { name: 'get', summary: 'Show one phone number and the agent it is assigned to', load: () => import('./get.js') },
  { name: 'update', summary: 'Change the name or description of a phone number', load: () => import('./update.js') },
  {
    name: 'release',
    summary: 'Release a phone number permanently (asks to confirm)',
    aliases: ['delete', 'rm'],
    load: () => import('./release.js'),
  },
  {
    name: 'v2',
    summary: 'Phone numbers v2: provisioned numbers and your own SIP trunk numbers',
    children: async () => (await import('./v2/index.js')).children,
  },
];
