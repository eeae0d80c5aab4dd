import type { CommandNode } from '../../cmdutil/command.js';

export const children: CommandNode[] = [
  {
    name: 'transcribe',
    summary: 'Transcribe an audio file or URL (text, words, subtitles)',
    load: () => import('./transcribe.js'),
  },
  {
    name: 'listen',
    summary: 'Transcribe live audio (microphone, file or stdin) as it is spoken',
    load: () => import('./listen.js'),
  },
];
