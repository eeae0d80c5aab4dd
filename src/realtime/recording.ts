// `--record FILE`: both sides of a voice session in one stereo WAV (16-bit, the session's sample rate): the user
// left, the assistant right, on one time line that starts when the session is live. A side's audio is placed by
// the monotonic clock: the input starts where its first frame was captured and runs on by its own count of samples
// (it never pauses: a muted input yields silence), an answer's audio starts when it was queued for playback or when
// the audio queued before it ends (the playback clock of a speaker; up to 100 ms late still follows on, as a
// device's buffer plays it) and runs on by its own count of samples (the answer's item is one stream: a chunk of it
// that came late, held up by a busy process, follows the one before it, as the input's frames do), and a barge-in
// cuts what was queued but not yet heard. Gaps are silence. Samples are
// kept in blocks until they are 2 s in the past, then written in order through the atomic writer, so a long
// session holds little memory and an existing file is replaced only once the recording is complete.
import { AtomicFile } from '../core/atomic-file.js';
import { wavHeader } from 'svc-formats/audio-codecs';
import type { PlaybackListener } from './playback.js';
import type { SessionObserver } from './turn-meter.js';

/** samples per channel in one block (1 s at 24 kHz) */
const BLOCK = 24_000;
const HOLD_SECONDS = 2;
/**
 * answer audio that comes at most this late after the audio before it ends follows it without a gap, as the device's
 * buffer (some tens of ms, more than this in practice) would play it; later, it starts when it came
 */
const LATE_MS = 100;
/**
 * a chunk of the answer being placed follows on up to this late (a process busy for a moment); later, the server
 * stalled (the gap was heard), and the blocks HOLD_SECONDS back may be written already
 */
const STREAM_LATE_MS = 1000;

export class ConversationRecording implements SessionObserver, PlaybackListener {
  private origin: number | undefined;
  /** where the input's first frame starts; the input is continuous from there (its own clock: samples) */
  private userStart: number | undefined;
  private userEnd = 0;
  /** input samples so far */
  private userCount = 0;
  private agentEnd = 0;
  private agentStarted = false;
  /** the answer's item whose audio was placed last (until a barge-in cuts it) */
  private agentStream: string | undefined;
  /** the input ended: the left channel is final from userEnd on */
  private inputOver = false;
  /** block index → interleaved stereo samples */
  private readonly blocks = new Map<number, Int16Array>();
  private nextBlock = 0;
  private writing: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private dataBytes = 0;

  private constructor(
    private readonly file: AtomicFile,
    private readonly sampleRate: number,
  ) {}

  static async create(path: string, sampleRate: number, replace: boolean): Promise<ConversationRecording> {
    const file = await AtomicFile.create(path, { replace });
    const rec = new ConversationRecording(file, sampleRate);
    rec.chain(() => file.write(wavHeader({ sampleRate, channels: 2 })));
    return rec;
  }

  /** The session is live: the time line starts. */
  configured(): void {
    this.origin ??= performance.now();
  }

  private position(at: number): number {
    this.origin ??= at;
    return Math.max(0, Math.round(((at - this.origin) * this.sampleRate) / 1000));
  }

  /**
   * A frame from the microphone / input (left). The input never pauses (a muted one yields silence), so a frame
   * follows the one before it: a frame held up by a busy process is placed by the audio's count, not by when it came.
   * The input starts at the earliest fit of every frame's arrival (none can come before its audio was taken): a
   * first frame held up (the process busy starting) put the whole input late, by 164 ms once against the turn's
   * measured latency, whose end of speech is a later frame's, come on time.
   */
  captured(frame: Buffer, at: number): void {
    const n = frame.length >> 1;
    const fit = Math.max(0, this.position(at) - this.userCount - n);
    if (this.userStart === undefined) this.userStart = fit;
    else if (fit < this.userStart && fit >= this.nextBlock * BLOCK) this.moveInputTo(fit);
    this.userCount += n;
    const start = Math.max(this.userStart, this.userEnd);
    this.put(0, start, frame, n);
    this.userEnd = start + n;
    // answers are placed from now on, the input from its end on: what is before both is final
    this.flushBefore(Math.min(this.position(at) - HOLD_SECONDS * this.sampleRate, this.userEnd));
  }

  /** The input placed so far moved earlier, to start at `start` (nothing of it written yet). */
  private moveInputTo(start: number): void {
    const by = this.userStart! - start;
    for (let p = this.userStart!; p < this.userEnd; p++) {
      const from = this.blocks.get(Math.floor(p / BLOCK));
      const to = this.blocks.get(Math.floor((p - by) / BLOCK)) ?? this.block(Math.floor((p - by) / BLOCK));
      to[((p - by) % BLOCK) * 2] = from ? from[(p % BLOCK) * 2]! : 0;
    }
    for (let p = Math.max(this.userEnd - by, this.userStart!); p < this.userEnd; p++) {
      const block = this.blocks.get(Math.floor(p / BLOCK));
      if (block) block[(p % BLOCK) * 2] = 0;
    }
    this.userStart = start;
    this.userEnd -= by;
  }

  /**
   * Answer audio queued for playback (right), of the answer's item `stream`: the rest of an item follows on whenever
   * it came (placed by when it came, a chunk held up by a busy process split a word: 'Th emulator').
   */
  queued(pcm: Buffer, at: number, stream?: string): void {
    const n = pcm.length >> 1;
    const now = this.position(at);
    const lateBy = now - this.agentEnd;
    const follows =
      stream !== undefined && stream === this.agentStream && lateBy <= samplesIn(STREAM_LATE_MS, this.sampleRate);
    const start = this.agentStarted && (follows || lateBy <= samplesIn(LATE_MS, this.sampleRate)) ? this.agentEnd : now;
    this.agentStarted = true;
    this.agentStream = stream;
    this.put(1, start, pcm, n);
    this.agentEnd = start + n;
    // once nothing more comes on the left, an answer is written as it comes (an hour of it is not held)
    if (this.inputOver) this.flushBefore(this.agentEnd);
  }

  /**
   * The input ended (a file, stdin): the left channel holds silence from its end on, so what is queued on the right
   * need not wait for it. (A barge-in after this cuts only what is still held.)
   */
  inputEnded(): void {
    this.inputOver = true;
    this.flushBefore(this.agentEnd);
  }

  /** Barge-in: what was queued after `at` was never heard. */
  cleared(at: number): void {
    const from = this.position(at);
    for (let p = from; p < this.agentEnd; p++) {
      const block = this.blocks.get(Math.floor(p / BLOCK));
      if (block) block[(p % BLOCK) * 2 + 1] = 0;
    }
    this.agentEnd = Math.min(this.agentEnd, Math.max(from, 0));
    this.agentStream = undefined;
  }

  private put(channel: 0 | 1, start: number, pcm: Buffer, n: number): void {
    for (let i = 0; i < n; i++) {
      const p = start + i;
      const index = Math.floor(p / BLOCK);
      if (index < this.nextBlock) continue; // already written (cannot happen: positions only move forward)
      const block = this.blocks.get(index) ?? this.block(index);
      block[(p % BLOCK) * 2 + channel] = pcm.readInt16LE(i * 2);
    }
  }

  private block(index: number): Int16Array {
    const block = new Int16Array(BLOCK * 2);
    this.blocks.set(index, block);
    return block;
  }

  /** Write the blocks wholly before sample position `end`, in order (silence for blocks never touched). */
  private flushBefore(end: number, partialTail = false): void {
    const last = partialTail ? Math.ceil(end / BLOCK) : Math.floor(end / BLOCK);
    for (; this.nextBlock < last; this.nextBlock++) {
      const index = this.nextBlock;
      const block = this.blocks.get(index) ?? new Int16Array(BLOCK * 2);
      this.blocks.delete(index);
      const samples = partialTail && index === last - 1 ? end - index * BLOCK : BLOCK;
      const bytes = Buffer.from(block.buffer, block.byteOffset, samples * 4);
      this.dataBytes += bytes.length;
      this.chain(() => this.file.write(bytes));
    }
  }

  private chain(step: () => Promise<void>): void {
    this.writing = this.writing.then(step).catch((err: Error) => {
      this.failure ??= err;
    });
  }

  /** Write what is left, the WAV sizes, and put the file in place. */
  async end(): Promise<void> {
    this.flushBefore(Math.max(this.userEnd, this.agentEnd), true);
    await this.writing;
    if (this.failure) {
      await this.file.discard();
      throw this.failure;
    }
    try {
      await this.file.writeAt(0, wavHeader({ sampleRate: this.sampleRate, channels: 2 }, this.dataBytes));
    } catch (err) {
      await this.file.discard();
      throw err;
    }
    await this.file.commit();
  }

  /** The session failed: the target stays as it was. */
  async abort(): Promise<void> {
    await this.writing;
    await this.file.discard();
  }
}

/** samples in `ms` at `rate` */
function samplesIn(duration: number, rate: number): number {
  return (duration * rate) / 1000;
}
