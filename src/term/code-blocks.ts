// -x/--extract: the first (or, --extract-last, the last) fenced code block of an answer, found as the answer streams:
// the first block is known the moment its closing fence arrives, the last only at the end. An answer without a fenced
// block is given whole (as llm does); a block the answer never closes ends with the answer.

/** An opening fence: up to 3 spaces, then ``` or ~~~ (3 or more), then an info string without backticks. */
const OPEN = /^ {0,3}(`{3,}|~{3,})([^`]*)$/;

export class CodeBlockExtractor {
  private pending = '';
  private all = '';
  private fence: string | undefined;
  private lines: string[] = [];
  private lastBlock: string | undefined;
  private given = false;

  /** `which`: the first block (given as soon as it closes) or the last (given at the end). */
  constructor(private readonly which: 'first' | 'last') {}

  /** A piece of the answer; the text to print now (the first block, once it closes), else ''. */
  push(piece: string): string {
    if (this.given) return '';
    this.all += piece;
    this.pending += piece;
    let nl = this.pending.indexOf('\n');
    let out = '';
    while (nl >= 0 && !this.given) {
      out += this.line(this.pending.slice(0, nl).replace(/\r$/, ''));
      this.pending = this.pending.slice(nl + 1);
      nl = this.pending.indexOf('\n');
    }
    return out;
  }

  /** The answer ended: what is left to print (the last block, a block left open, or the whole answer). */
  end(): string {
    if (this.given) return '';
    let out = this.pending ? this.line(this.pending.replace(/\r$/, '')) : '';
    this.pending = '';
    if (!this.given && this.fence !== undefined) out = this.close();
    if (this.given) return out;
    this.given = true;
    if (this.lastBlock !== undefined) return this.lastBlock;
    return this.all.endsWith('\n') || !this.all ? this.all : `${this.all}\n`;
  }

  private line(text: string): string {
    if (this.fence === undefined) {
      const open = OPEN.exec(text);
      if (open) {
        this.fence = open[1]!;
        this.lines = [];
      }
      return '';
    }
    const closing = text.trim();
    const fenceChar = this.fence[0]!;
    if (closing.length >= this.fence.length && closing === fenceChar.repeat(closing.length)) return this.close();
    this.lines.push(text);
    return '';
  }

  private close(): string {
    const block = this.lines.length ? `${this.lines.join('\n')}\n` : '';
    this.fence = undefined;
    if (this.which === 'first') {
      this.given = true;
      return block;
    }
    this.lastBlock = block;
    return '';
  }
}
