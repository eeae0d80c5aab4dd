import type { CommandNode } from '../../core/command.js';

export const children: CommandNode[] = [
  { name: 'refer', summary: 'Transfer an active SIP call to a tel: or sip: address', load: () => import('./refer.js') },
  { name: 'hangup', summary: 'End an active SIP call', load: () => import('./hangup.js') },
];
