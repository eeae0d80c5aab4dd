// The output of a batch: one JSON line per input row, each row exactly once. `--order input` (the default) prints
// a row as soon as every row before it is printed (the rows that finished early wait, as journal positions, not as
// text); `--order done` prints each as it finishes. Rows done by an earlier run are read back from the journal.
import { readOutAt, type Located } from './journal.js';

export type Order = 'input' | 'done';

export class OrderedOutput {
  private next = 1;
  private readonly waiting = new Map<number, Located>();
  /** rows printed */
  written = 0;

  constructor(
    private readonly order: Order,
    private readonly journalFd: () => number,
    private readonly print: (out: Record<string, unknown>) => void,
    /** rows done before this run: printed in their place */
    private readonly earlier: Map<number, Located>,
  ) {}

  /** A row's record is in the journal at `at`. */
  complete(row: number, at: Located): void {
    if (this.order === 'done') {
      this.emit(at);
      return;
    }
    this.waiting.set(row, at);
    this.drain();
  }

  /** Print the earlier rows not yet printed (--order done prints them first). */
  begin(): void {
    if (this.order === 'done') for (const at of this.earlier.values()) this.emit(at);
    else this.drain();
  }

  private drain(): void {
    for (;;) {
      const at = this.waiting.get(this.next) ?? this.earlier.get(this.next);
      if (!at) return;
      this.waiting.delete(this.next);
      this.emit(at);
      this.next++;
    }
  }

  /**
   * The run stops (all sent, or stopped early): whatever finished is printed, in input order past the gaps of rows
   * never answered (a resume fills them in).
   */
  finish(total: number): void {
    if (this.order === 'done') return;
    for (; this.next <= total; this.next++) {
      const at = this.waiting.get(this.next) ?? this.earlier.get(this.next);
      if (!at) continue;
      this.waiting.delete(this.next);
      this.emit(at);
    }
  }

  private emit(at: Located): void {
    this.print(readOutAt(this.journalFd(), at));
    this.written++;
  }
}
