// The live transcript of a voice session. On a terminal the assistant's words appear as they are spoken;
// in a pipe each turn is one line (`you: …`, `assistant: …`) written when the turn is complete. With --json
// every server event except the audio itself is one JSON line (as the API sent it; audio deltas are
// shown with their byte count instead of the base64 payload).

import { jsonSafe, terminalSafe } from '../term/terminal-safe.js';

export interface TranscriptLabels {
  user: string;
  assistant: string;
}

/** Where a transcript goes: stdout (through the Output's writer) or stderr. */
export interface TranscriptOut {
  isTTY?: boolean;
  write(text: string): unknown;
}

export class TranscriptView {
  private partial = '';
  private midLine = false;

  constructor(
    private readonly out: TranscriptOut,
    private readonly opts: { json: boolean; labels: TranscriptLabels; live?: boolean },
  ) {}

  private get live(): boolean {
    return this.opts.live ?? !!this.out.isTTY;
  }

  private write(s: string): void {
    // transcripts are server text: made safe on a terminal, byte for byte in a pipe and with --json
    this.out.write(this.out.isTTY ? terminalSafe(s) : s);
  }

  /** every server event goes through here (only --json prints them) */
  event(ev: Record<string, any>): void {
    if (!this.opts.json) return;
    if (typeof ev.delta === 'string' && /audio\.delta$/.test(String(ev.type))) {
      const { delta, ...rest } = ev;
      this.write(`${jsonSafe(JSON.stringify({ ...rest, delta_bytes: Buffer.from(delta, 'base64').length }))}\n`);
      return;
    }
    this.write(`${jsonSafe(JSON.stringify(ev))}\n`);
  }

  /** a line that is not part of the transcript (the JSON form has the events themselves) */
  private endPartial(): void {
    if (this.midLine) {
      this.write('\n');
      this.midLine = false;
    }
  }

  user(text: string): void {
    if (this.opts.json) return;
    this.endPartial();
    this.write(`${this.opts.labels.user}: ${text}\n`);
  }

  assistantDelta(delta: string): void {
    if (this.opts.json) return;
    if (!this.live) {
      this.partial += delta;
      return;
    }
    if (!this.midLine) {
      this.write(`${this.opts.labels.assistant}: `);
      this.midLine = true;
    }
    this.partial += delta;
    this.write(delta);
  }

  /** the assistant's turn is complete (`transcript` when the server sent it) */
  assistantDone(transcript?: string, note?: string): void {
    if (this.opts.json) return;
    const text = transcript ?? this.partial;
    if (this.live) {
      if (!this.midLine && text) this.write(`${this.opts.labels.assistant}: ${text}`);
      else if (transcript && this.partial !== transcript && transcript.startsWith(this.partial))
        this.write(transcript.slice(this.partial.length));
      if (this.midLine || text) this.write(note ? ` ${note}\n` : '\n');
    } else if (text || note) {
      this.write(`${this.opts.labels.assistant}: ${text}${note ? `${text ? ' ' : ''}${note}` : ''}\n`);
    }
    this.midLine = false;
    this.partial = '';
  }

  /** an assistant turn that was cut short (barge-in, Ctrl-C; `note` says how: [call ended], [incomplete]) */
  interrupted(note = '[interrupted]'): void {
    if (this.opts.json) return;
    if (this.partial || this.midLine) this.assistantDone(undefined, note);
  }

  get hasPartial(): boolean {
    return this.partial.length > 0 || this.midLine;
  }
}
