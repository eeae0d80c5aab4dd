import type { CommandNode } from '../../cmdutil/command.js';

export const children: CommandNode[] = [
  { name: 'create', summary: 'Create an agent from flags or a JSON file', load: () => import('./create.js') },
  { name: 'list', summary: 'List the agents of the team', aliases: ['ls'], load: () => import('./list.js') },
  { name: 'get', summary: 'Show one agent', load: () => import('./get.js') },
  {
    name: 'update',
    summary: 'Change the fields given (the field mask is exactly those fields); assign or unassign a phone number',
    load: () => import('./update.js'),
  },
  { name: 'delete', summary: 'Delete an agent (permanent)', aliases: ['rm'], load: () => import('./delete.js') },
  {
    name: 'pull',
    summary: 'Write an agent as JSON (stdout or -o FILE), ready to edit and push',
    load: () => import('./pull.js'),
  },
  {
    name: 'test',
    summary: 'Run scripted conversations against an agent and check its replies and tool calls',
    load: () => import('./test.js'),
  },
  {
    name: 'push',
    summary: 'Create or update an agent to match a JSON file, showing the difference first',
    load: () => import('./push.js'),
  },
];
