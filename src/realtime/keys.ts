// Push-to-talk on a terminal. A terminal reports key presses, not releases, so:
// - a single tap of space toggles talking on, the next tap toggles it off;
// - holding space makes the terminal repeat it; once repeats are seen, talking stops when they stop
//   (the key was released).
// `q` or Ctrl-C ends the session. While an --approve question waits (KeyQuestion), the other keys answer it.

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

/**
 * A yes/no question answered by one key among the talk keys (--approve with --push-to-talk): y is yes, any other key
 * no, except space (still the talk key: a held space must not answer) and the keys that end the session.
 */
export class KeyQuestion {
  private answer: ((yes: boolean) => void) | undefined;

  /** Resolves with the answer; false once `signal` aborts (the session ended). */
  ask(signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve(false);
      const done = (yes: boolean) => {
        this.answer = undefined;
        signal.removeEventListener('abort', onAbort);
        resolve(yes);
      };
      const onAbort = () => done(false);
      signal.addEventListener('abort', onAbort, { once: true });
      this.answer = done;
    });
  }

  /** A key (not space, not a quit key): true when it answered the question waiting. */
  key(ch: string): boolean {
    if (!this.answer) return false;
    this.answer(ch === 'y' || ch === 'Y');
    return true;
  }
}

const QUIT_KEYS = new Set(['q', 'Q', '\u0003', '\u0004']);

/** Read keys from a terminal in raw mode; returns a function that gives the terminal back. */
export function attachKeys(
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown },
  keys: PushToTalkKeys,
  onQuit: () => void,
  question?: KeyQuestion,
): () => void {
  stdin.setRawMode?.(true);
  stdin.resume();
  const onData = (chunk: Buffer | string) => {
    for (const ch of chunk.toString()) {
      if (ch === ' ') keys.space();
      else if (QUIT_KEYS.has(ch)) onQuit();
      else question?.key(ch);
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
