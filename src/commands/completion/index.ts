import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Print a shell completion script (bash, zsh, fish, powershell), or man pages (completion man)',
  order: 140,
  runs: 'script',
};

export const children: CommandNode[] = [
  {
    name: 'man',
    summary: 'Print the man page of a command, or install them all (--install)',
    load: () => import('./man.js'),
  },
];
