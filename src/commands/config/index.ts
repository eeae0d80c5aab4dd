import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Read and write settings and profiles',
  order: 30,
};

export const children: CommandNode[] = [
  {
    name: 'get',
    summary: 'Print one setting of the profile (or the value that applies when it is not set)',
    load: () => import('./get.js'),
  },
  { name: 'set', summary: 'Set one setting of the profile', load: () => import('./set.js') },
  { name: 'unset', summary: 'Remove one setting of the profile', load: () => import('./unset.js') },
  {
    name: 'list',
    summary: 'List the settings of the profile (the key redacted)',
    aliases: ['ls'],
    load: () => import('./list.js'),
  },
  { name: 'path', summary: 'Print the path of the configuration file', load: () => import('./path.js') },
  { name: 'use', summary: 'Make a profile the current one', load: () => import('./use.js') },
];
