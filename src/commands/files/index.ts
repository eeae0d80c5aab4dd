import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Upload, list, download, share and delete stored files',
  order: 80,
};

export const children: CommandNode[] = [
  { name: 'upload', summary: 'Upload files (streamed from disk)', load: () => import('./upload.js') },
  { name: 'list', summary: 'List stored files', aliases: ['ls'], load: () => import('./list.js') },
  { name: 'get', summary: 'Show the metadata of a file', load: () => import('./get.js') },
  { name: 'download', summary: 'Download the content of a file', load: () => import('./download.js') },
  { name: 'delete', summary: 'Delete files', aliases: ['rm'], load: () => import('./delete.js') },
  { name: 'share', summary: 'Create a public, unauthenticated URL for a file', load: () => import('./share.js') },
  { name: 'unshare', summary: 'Revoke the public URL of a file', load: () => import('./unshare.js') },
];
