import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Speech to text: transcribe files and live audio',
  order: 210,
};

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
