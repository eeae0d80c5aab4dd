// Push-to-talk on a terminal. A terminal reports key presses, not releases, so:
// - a single tap of space toggles talking on, the next tap toggles it off;
// - holding space makes the terminal repeat it; once repeats are seen, talking stops when they stop
//   (the key was released).
// `q` or Ctrl-C ends the session.

export interface PttTarget {
  setTalking(on: boolean): void;
  readonly isTalking: boolean;
}

/** Repeats closer than this are the key being held. */
const REPEAT_MS = 150;
/** After repeats, this long without one means the key was released. */
const RELEASE_MS = 250;

export class PushToTalkKeys {
  private last = 0;
  private held = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly target: PttTarget,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** A space press. */
  space(): void {
    const t = this.now();
    const gap = t - this.last;
    this.last = t;
    if (!this.target.isTalking) {
      this.held = false;
      this.target.setTalking(true);
      return;
    }
    if (gap < REPEAT_MS) {
      // auto-repeat: the key is held down; talking ends when the repeats stop
      this.held = true;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.release(), RELEASE_MS);
      return;
    }
    if (!this.held) this.release();
  }

  private release(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.held = false;
    if (this.target.isTalking) this.target.setTalking(false);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}

/** Read keys from a terminal in raw mode; returns a function that gives the terminal back. */
export function attachKeys(
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown },
  keys: PushToTalkKeys,
  onQuit: () => void,
): () => void {
  stdin.setRawMode?.(true);
  stdin.resume();
  const onData = (chunk: Buffer | string) => {
    for (const ch of chunk.toString()) {
      if (ch === ' ') keys.space();
      else if (ch === 'q' || ch === 'Q' || ch === '\u0003' || ch === '\u0004') onQuit();
    }
  };
  stdin.on('data', onData);
  return () => {
    keys.dispose();
    stdin.removeListener('data', onData);
    stdin.setRawMode?.(false);
    stdin.pause();
  };
}
