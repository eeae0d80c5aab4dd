import type { CommandNode, RootEntry } from '../../cmdutil/command.js';

export const root: RootEntry = {
  summary: 'Text to speech and the voices',
  order: 200,
};

export const children: CommandNode[] = [
  {
    name: 'say',
    summary: 'Speak text: play it, or write the audio to a file or stdout',
    load: () => import('./say.js'),
  },
  {
    name: 'stream',
    summary: 'Speak text from stdin as it arrives (a blank line or the end ends an utterance)',
    load: () => import('./stream.js'),
  },
  { name: 'voices', summary: 'List the built-in voices', load: () => import('./voices.js') },
  { name: 'voice', summary: 'Show one voice', load: () => import('./voice.js') },
];
