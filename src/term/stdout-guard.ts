// The guard of stdout: whoever writes there (the Output, commander's help, a live transcript, an audio sink), a failed
// write is kept, never lost in silence (issue 25: `svc chat … > out.md` on a full disk exited 0 with an empty file).
// Small on purpose: cli.ts guards stdout before anything is written, help included.
import { StdoutWriteError } from '../core/errors.js';

/**
 * What became of the writes to one stdout stream, whoever made them (the Output, commander's help, a transcript, an
 * audio sink): the stream's first failed write, kept as a StdoutWriteError. One guard per stream (guardStdout).
 */
export interface StdoutGuard {
  /** the first failed write to the stream (EPIPE included: the caller decides that it is quiet) */
  readonly failure: StdoutWriteError | undefined;
  /** resolves once what was handed to the stream has reached the system, or failed */
  settle(): Promise<void>;
}

const guards = new WeakMap<object, StdoutGuard>();

/**
 * The guard of a stdout stream, made on first use: it listens for the stream's errors (a full disk, a file past its
 * size limit, a terminal gone, a descriptor not open for writing, a closed pipe), so that none is lost in silence.
 */
export function guardStdout(stream: NodeJS.WritableStream): StdoutGuard {
  let guard = guards.get(stream);
  if (guard) return guard;
  // a bare object with a write method (the build's help renderer) has no errors to tell
  if (typeof stream.on !== 'function') return { failure: undefined, settle: () => Promise.resolve() };
  let failure: StdoutWriteError | undefined;
  const note = (err: NodeJS.ErrnoException | null | undefined) => {
    if (err && !failure) failure = err instanceof StdoutWriteError ? err : new StdoutWriteError(err.code, err);
  };
  stream.on('error', note);
  // a write that failed is known to the stream at once (its error event comes a few ticks later); a Duplex keeps it
  // in its writable state only
  const w = stream as NodeJS.WritableStream & {
    destroyed?: boolean;
    writableEnded?: boolean;
    writableErrored?: NodeJS.ErrnoException | null;
    _writableState?: { errored?: NodeJS.ErrnoException | null };
  };
  const errored = () => w.writableErrored ?? w._writableState?.errored;
  guard = {
    get failure() {
      note(errored());
      return failure;
    },
    settle: () =>
      new Promise<void>((resolve) => {
        const done = (err?: NodeJS.ErrnoException | null) => {
          // ERR_STREAM_DESTROYED and the like only repeat that the stream is gone: its own error says why
          if (err?.syscall) note(err);
          note(errored());
          setImmediate(resolve);
        };
        if (errored() || w.destroyed || w.writableEnded || !w.writable) return done();
        w.write('', done);
      }),
  };
  guards.set(stream, guard);
  return guard;
}
