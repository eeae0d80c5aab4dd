import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Saved prompts, system prompts, models and flags for -t (save, list, show, edit, delete)',
  order: 50,
};

export const children: CommandNode[] = [
  {
    name: 'save',
    summary: 'Save a prompt, system prompt, model, schema and flags as a template for -t',
    load: () => import('./save.js'),
  },
  { name: 'list', summary: 'List the saved templates', aliases: ['ls'], load: () => import('./list.js') },
  { name: 'show', summary: 'Print a template (its YAML file)', load: () => import('./show.js') },
  { name: 'edit', summary: 'Open a template in $VISUAL or $EDITOR', load: () => import('./edit.js') },
  { name: 'delete', summary: 'Delete templates', aliases: ['rm'], load: () => import('./delete.js') },
];
