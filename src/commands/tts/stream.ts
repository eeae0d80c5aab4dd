import { defineCommand } from '../../cmdutil/command.js';
import { ExitCode, IncompleteError, InterruptedError, UsageError } from '../../core/errors.js';
import type { Context } from '../../runtime/context.js';
import { closeNote } from '../../net/ws.js';
import { TtsSocket } from '../../endpoints/tts.js';
import type { EncodedOutput } from '../../audio/player.js';
import { TTS_OPTIONS, Timings, destination, onInterrupt, openOutput, streamQuery, writeAudio } from './say.js';

/**
 * Splits text arriving in pieces into what can be sent now and utterance ends (blank lines). A trailing
 * newline is held back until it is known whether a blank line follows.
 */
export class UtteranceSplitter {
  private held = '';
  /** returns the pieces in order: strings to send, and `null` where an utterance ends */
  push(chunk: string): (string | null)[] {
    const text = this.held + chunk;
    this.held = '';
    const out: (string | null)[] = [];
    const re = /\n[ \t\r]*\n\s*/g;
    let last = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text))) {
      // a blank line at the very end may continue in the next chunk: treat it as an end anyway
      if (m.index > last) out.push(text.slice(last, m.index));
      out.push(null);
      last = m.index + m[0].length;
    }
    let rest = text.slice(last);
    const tail = /\n[ \t\r]*$/.exec(rest);
    if (tail) {
      this.held = rest.slice(tail.index);
      rest = rest.slice(0, tail.index);
    }
    if (rest) out.push(rest);
    return out;
  }
  /** at the end of input */
  end(): (string | null)[] {
    const h = this.held.trim() ? this.held : '';
    this.held = '';
    return h ? [h, null] : [null];
  }
}

export default defineCommand({
  description:
    'Every piece of stdin is sent as text.delta the moment it arrives, and the audio is played or written as ' +
    'it comes back, so ' +
    '`svc chat "tell a story" | svc tts stream` speaks while the story is still being written. A blank line ' +
    'ends an utterance ' +
    '(text.done); the end of stdin ends the last one. With -o FILE, Ctrl-C (the way `tail -f notes | svc tts ' +
    'stream -o notes.mp3` ends) keeps the audio received so far as a complete file and says so (exit 130); a ' +
    'second Ctrl-C quits at once.',
  options: TTS_OPTIONS,
  examples: [
    'svc chat "tell a short story" | svc tts stream',
    'tail -f notes.txt | svc tts stream --voice ara',
    'cat script.txt | svc tts stream -o script.mp3',
  ],
  async run(ctx, _args, opts) {
    if (ctx.streams.stdin.isTTY) ctx.out.info('reading text from the terminal: a blank line speaks it, Ctrl-D ends');
    const d = destination(ctx, opts);
    if (d.dest === '-' && ctx.out.stdoutIsTTY)
      throw new UsageError('-o -: will not write audio bytes to a terminal; redirect stdout or give -o FILE');
    const out = await openOutput(ctx, opts, d);
    const timings = new Timings();
    // some text first: an empty input is exit 2 before any connection
    const { input, first } = await firstText(ctx.streams.stdin);
    if (!first.some((t) => /\S/.test(t))) {
      await out.abort();
      throw new UsageError('no text on stdin: nothing to speak');
    }
    let sock: TtsSocket;
    try {
      sock = await TtsSocket.open((p, q) => ctx.ws(p, q), streamQuery(opts, d));
    } catch (err) {
      await out.abort();
      throw err;
    }
    onInterrupt(ctx, () => sock.close());
    // into a file, Ctrl-C ends the stream and keeps what arrived (the speaker stops, stdout has what it got)
    const toFile = d.dest !== '-' && d.dest !== 'speaker';
    const stop = toFile ? keepOnCtrlC(ctx, () => sock.close()) : undefined;
    const session = exchange(sock, input, first, out, timings, stop?.signal);
    try {
      await writeAudio(
        ctx,
        out,
        async () => {
          await session;
          sock.close();
          if (ctx.signal.aborted) throw new InterruptedError();
          if (stop?.signal.aborted && out.bytesIn === 0) throw new InterruptedError();
        },
        () => sock.close(),
      );
    } catch (err) {
      if (stop?.signal.aborted && err instanceof InterruptedError)
        ctx.out.info(`interrupted before any audio arrived: ${d.dest} not written`);
      throw err;
    } finally {
      ctx.setInterruptHandler(undefined);
    }
    await timings.write(ctx, opts.timestamps, opts.force);
    const what = `${d.codec}${out.seconds ? `, ${out.seconds.toFixed(2)} s` : ''}, ${out.bytesIn} bytes`;
    if (stop?.signal.aborted) {
      ctx.out.info(`interrupted: kept the audio received so far in ${d.dest} (${what})`);
      return ExitCode.interrupted;
    }
    if (toFile) ctx.out.info(`wrote ${d.dest} (${d.codec}, ${out.bytesIn} bytes)`);
    return 0;
  },
});

/**
 * Take Ctrl-C over: the first one stops reading stdin and closes the socket (`close`), so the stream ends with what
 * arrived and the file is finished, not abandoned; a second one quits at once (the default: the file is abandoned).
 */
function keepOnCtrlC(ctx: Context, close: () => void): AbortController {
  const stop = new AbortController();
  ctx.setInterruptHandler(() => {
    ctx.setInterruptHandler(undefined);
    ctx.out.info('(stopping: keeping the audio received so far; Ctrl-C again to quit at once)');
    stop.abort();
    close();
  });
  return stop;
}

/** stdin's pieces up to the first that is not blank (read before connecting: no text is exit 2, nothing sent) */
async function firstText(stdin: NodeJS.ReadableStream): Promise<{ input: AsyncIterator<string>; first: string[] }> {
  (stdin as { setEncoding?(e: string): void }).setEncoding?.('utf8');
  const input = (stdin as AsyncIterable<string>)[Symbol.asyncIterator]();
  const first: string[] = [];
  for (;;) {
    const r = await input.next();
    if (r.done) break;
    first.push(String(r.value));
    if (/\S/.test(String(r.value))) break;
  }
  return { input, first };
}

/**
 * The session: stdin's text goes out as it arrives (a blank line or the end ends an utterance) while the audio that
 * comes back is played or written; done when the input has ended and every utterance's audio.done has arrived.
 */
/** One audio event of the service written out; true for audio.done (an utterance is complete). */
async function writeAudioEvent(
  ev: NonNullable<Awaited<ReturnType<TtsSocket['next']>>>,
  out: EncodedOutput,
  timings: Timings,
): Promise<boolean> {
  if (ev.type === 'audio.delta') {
    await out.write(ev.audio);
    timings.add(ev.audio_timestamps);
  } else if (ev.type === 'audio.done') {
    await out.endUtterance();
    timings.nextUtterance(out.seconds);
    return true;
  } else if (ev.type === 'audio.clear') out.clear();
  return false;
}

/**
 * `p`, or 'stop' once `stop` aborts; the listener goes when `p` settles. Not `Promise.race([p, stopped])` with one
 * promise for the whole session: each such race leaves a reaction on the promise that never settles, and with it
 * the race's result, so every audio event of an hours-long stream stayed reachable (the heap grew with the audio).
 */
function orStop<T>(p: Promise<T>, stop: AbortSignal | undefined): Promise<T | 'stop'> {
  if (!stop) return p;
  if (stop.aborted) return Promise.resolve('stop');
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve('stop');
    stop.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        stop.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        stop.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function exchange(
  sock: TtsSocket,
  input: AsyncIterator<string>,
  first: string[],
  out: EncodedOutput,
  timings: Timings,
  stop?: AbortSignal,
): Promise<unknown> {
  let sentSinceDone = false;
  let pendingUtterances = 0;
  // the service owes audio only for an utterance that was ended (text.done); stdin may rightly be quiet
  sock.conn.awaiting = () => pendingUtterances > 0;
  let inputEnded = false;
  let wake: (() => void) | undefined;

  const sendPieces = (pieces: (string | null)[]) => {
    for (const p of pieces) {
      if (p === null) {
        if (sentSinceDone) {
          sock.done();
          pendingUtterances++;
          sentSinceDone = false;
        }
      } else if (p.length) {
        sock.sendText(p);
        sentSinceDone = true;
      }
    }
  };

  const reader = (async () => {
    const splitter = new UtteranceSplitter();
    try {
      for (const chunk of first) sendPieces(splitter.push(chunk));
      for (;;) {
        // Ctrl-C into a file: stdin's wait and the socket's end the exchange, which keeps what arrived
        const r = await orStop(input.next(), stop);
        if (r === 'stop' || r.done || !sock.conn.isOpen) break;
        sendPieces(splitter.push(String(r.value)));
      }
      if (sock.conn.isOpen && !stop?.aborted) sendPieces(splitter.end());
    } finally {
      inputEnded = true;
      wake?.();
    }
  })();

  const receiver = (async () => {
    // one outstanding next() at a time: a message must never be taken by a read whose result is dropped
    let next: ReturnType<TtsSocket['next']> | undefined;
    for (;;) {
      if ((inputEnded && pendingUtterances === 0) || stop?.aborted) break;
      next ??= sock.next();
      const woken = new Promise<'wake'>((r) => (wake = () => r('wake')));
      const ev = await orStop(Promise.race([next, woken]), stop);
      if (ev === 'wake') continue;
      if (ev === 'stop') {
        // the socket is being closed: whatever its last read ends with is of no interest now
        next.catch(() => undefined);
        break;
      }
      next = undefined;
      if (!ev) {
        if (pendingUtterances > 0 || sentSinceDone)
          throw new IncompleteError(
            `the service closed the connection before audio.done${closeNote(sock.conn)}: the audio is incomplete`,
          );
        break;
      }
      if (await writeAudioEvent(ev, out, timings)) pendingUtterances--;
    }
  })();

  return Promise.all([reader, receiver]);
}
