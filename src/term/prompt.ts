// Reading from a person at a terminal: a hidden line (for secrets) and a plain line.
import { InterruptedError } from '../core/errors.js';
import type { Streams } from './output.js';

/** Read one line from a terminal without echoing it. Ctrl-C cancels; backspace edits. */
export function readHidden(streams: Streams, question: string): Promise<string> {
  const stdin = streams.stdin as NodeJS.ReadStream;
  streams.stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const wasRaw = stdin.isRaw;
    stdin.setRawMode?.(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const done = (err?: Error) => {
      stdin.setRawMode?.(wasRaw ?? false);
      stdin.pause();
      stdin.removeListener('data', onData);
      streams.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new InterruptedError());
        if (ch === '\u0004') return done();
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}
