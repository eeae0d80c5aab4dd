// --approve in a voice session (realtime talk, calls join): before each --tool-cmd or --mcp call, chat's question
// `run NAME ARGS? [y/N]` on stderr and chat's rule (only y or yes runs it; a no sends DECLINED to the model). The
// terminal answers it as the session reads it: with --push-to-talk (raw mode, the talk keys) one key through the
// same key reader (keys.ts KeyQuestion); otherwise a line typed on stdin. Questions come one at a time; one still
// waiting when the session ends is answered no. The flag's checks (before anything starts) are in run.ts.
import { readLine } from '../cmdutil/confirm.js';
import { terminalSafe } from '../term/terminal-safe.js';
import { KeyQuestion } from './keys.js';
import type { StatusLine } from './status-line.js';

export interface ToolCallAsked {
  name: string;
  arguments: string;
}

export interface AskingStreams {
  stdin: NodeJS.ReadableStream;
  stderr: { write(text: string): unknown };
}

export class VoiceApproval {
  /** push-to-talk: the key reader answers (attachKeys) */
  readonly keys: KeyQuestion | undefined;
  /** the live status line, held while a question waits */
  status: StatusLine | undefined;
  private readonly ended = new AbortController();
  private queue: Promise<unknown> = Promise.resolve();
  /** stdin reached its end (Ctrl-D): every later question is answered no at once */
  private stdinEnded = false;
  /** a question is on the terminal, waiting */
  private asking = false;

  constructor(
    private readonly streams: AskingStreams,
    pushToTalk: boolean,
  ) {
    this.keys = pushToTalk ? new KeyQuestion() : undefined;
  }

  /** Asks about one call (after the questions before it); true runs it. */
  readonly approve = (call: ToolCallAsked): Promise<boolean> => {
    const next = this.queue.then(() => this.ask(call));
    this.queue = next.catch(() => undefined);
    return next;
  };

  /** The session ends: a question waiting is answered no (its line closed at once), and no other is asked. */
  end(): void {
    if (this.asking) this.streams.stderr.write('\n');
    this.asking = false;
    this.ended.abort();
  }

  private async ask(call: ToolCallAsked): Promise<boolean> {
    const ended = this.ended.signal;
    if (ended.aborted) return false;
    const { stdin, stderr } = this.streams;
    this.status?.hold(true);
    try {
      stderr.write(terminalSafe(`run ${call.name} ${call.arguments}? [y/N] `));
      this.asking = true;
      if (this.keys) {
        const yes = await this.keys.ask(ended);
        // raw mode echoes nothing: the answer is shown
        if (!ended.aborted) stderr.write(`${yes ? 'yes' : 'no'}\n`);
        return yes;
      }
      const answer = this.stdinEnded ? undefined : await readLine(stdin, ended);
      if (answer === undefined && !ended.aborted) {
        this.stdinEnded = true;
        stderr.write('no (stdin ended)\n');
      }
      return /^\s*y(es)?\s*$/i.test(answer ?? '');
    } finally {
      this.asking = false;
      this.status?.hold(false);
    }
  }
}
