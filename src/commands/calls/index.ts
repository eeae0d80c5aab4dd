import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Control active SIP calls (transfer, hang up)',
  order: 170,
};

export const children: CommandNode[] = [
  { name: 'refer', summary: 'Transfer an active SIP call to a tel: or sip: address', load: () => import('./refer.js') },
  { name: 'hangup', summary: 'End an active SIP call', load: () => import('./hangup.js') },
  {
    name: 'join',
    summary: 'Run a realtime voice session on an inbound SIP call (transcript on the terminal)',
    load: () => import('./join.js'),
  },
  {
    name: 'listen',
    summary: 'Receive realtime.call.incoming webhooks, verify them, print (and join) each call',
    load: () => import('./listen.js'),
  },
];
