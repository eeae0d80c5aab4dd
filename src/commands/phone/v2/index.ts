import type { CommandNode } from '../../../cmdutil/command.js';

export const children: CommandNode[] = [
  {
    name: 'create',
    summary: 'Provision a number or register a number of your own SIP trunk',
    load: () => import('./create.js'),
  },
  {
    name: 'list',
    summary: 'List v2 phone numbers (one page, or --all)',
    aliases: ['ls'],
    load: () => import('./list.js'),
  },
  {
    name: 'delete',
    summary: 'Remove a v2 phone number (asks to confirm)',
    aliases: ['rm'],
    load: () => import('./delete.js'),
  },
];
