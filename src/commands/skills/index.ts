import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Upload, list, download and delete skills (zip archives)',
  order: 90,
};

export const children: CommandNode[] = [
  {
    name: 'upload',
    summary: 'Upload a skill (a zip archive, or a folder zipped on the fly)',
    load: () => import('./upload.js'),
  },
  { name: 'list', summary: 'List skills', aliases: ['ls'], load: () => import('./list.js') },
  { name: 'get', summary: 'Show one skill', load: () => import('./get.js') },
  { name: 'delete', summary: 'Delete skills', aliases: ['rm'], load: () => import('./delete.js') },
  { name: 'download', summary: 'Download the zip archive of a skill', load: () => import('./download.js') },
];
