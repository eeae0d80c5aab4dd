import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Create, inspect and update voice agents; keep them as code (pull/push)',
  order: 150,
};

export const children: CommandNode[] = [
  { name: 'create', summary: 'Create an agent from flags or a JSON file', load: () => import('./create.js') },
  { name: 'list', summary: 'List the agents of the team', aliases: ['ls'], load: () => import('./list.js') },
  { name: 'get', summary: 'Show one agent and the phone numbers assigned to it', load: () => import('./get.js') },
  {
    name: 'update',
    summary: 'Change the fields given (the field mask is exactly those fields); assign or unassign a phone number',
    load: () => import('./update.js'),
  },
  { name: 'delete', summary: 'Delete an agent (permanent)', aliases: ['rm'], load: () => import('./delete.js') },
  {
    name: 'pull',
    summary: 'Write an agent as JSON (stdout or -o FILE), or --all agents into the files of a project',
    load: () => import('./pull.js'),
  },
  {
    name: 'test',
    summary: 'Run scripted conversations against an agent and check its replies and tool calls',
    load: () => import('./test.js'),
  },
  {
    name: 'simulate',
    summary: 'Simulated callers talk to an agent; a judge scores each call and its latency is held to a budget',
    load: () => import('./simulate.js'),
  },
  {
    name: 'push',
    summary: 'Create or update the agents of a project (or -f files) to match their files, showing the difference',
    load: () => import('./push.js'),
  },
  {
    name: 'init',
    summary: 'Make a folder a project of agents (svc-agents.json and agents/, one file per agent)',
    load: () => import('./init.js'),
  },
  {
    name: 'status',
    summary: 'Show which agents of a project differ from the server, per environment',
    load: () => import('./status.js'),
  },
  {
    name: 'diff',
    summary: 'Print how the server differs from the agent files; exit 1 when it does (git diff --exit-code)',
    load: () => import('./diff.js'),
  },
];
