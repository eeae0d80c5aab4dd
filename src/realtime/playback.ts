// The session's audio on its way out: wire bytes (pcm16 / mu-law / A-law) decoded to PCM for the sink,
// writes kept in order, and a playback clock. A speaker plays in real time, so "the assistant is still
// speaking" lasts until the audio written so far has been heard (plus the device's buffering); a file or
// pipe is done once written.
import { performance } from 'node:perf_hooks';
import type { AudioSink } from '../audio/sink.js';
import { decodeSamples } from 'svc-formats/audio-codecs';

/** What a sound card still holds after the last write was handed on (ALSA buffer), heard after it. */
const DEVICE_TAIL_MS = 250;
/**
 * PCM queued for a file or stdout and not yet taken: past this the session stops reading the socket (TCP pushes back
 * on a server that sends faster than the audio is written) until half of it is written.
 */
const AHEAD_BYTES = 4 * 1024 * 1024;
/**
 * A speaker takes audio at real time, and a barge-in must be read while an answer plays: its bound is minutes of
 * audio, more than any answer a server sends ahead, so that only a runaway server is held back.
 */
const SPEAKER_AHEAD_SECONDS = 600;

/** Who watches the audio going out: the turn meter (when it reached the device), the recording (what was played). */
export interface PlaybackListener {
  /**
   * PCM queued for the sink at `at` (performance.now()), whether or not a sink is open; `stream`: the answer's item
   * it belongs to (its audio is one stream, whenever its chunks come)
   */
  queued?(pcm: Buffer, at: number, stream?: string): void;
  /**
   * the PCM of a write received from the socket at `receivedAt` reached the device / file at `handedAt`; `steps`:
   * when the session took it up (`handledAt`) and when it was decoded and queued (`queuedAt`)
   */
  handed?(receivedAt: number, handedAt: number, steps: { handledAt: number; queuedAt: number }): void;
  /** playback stopped at `at` (barge-in): what was queued after it is not heard */
  cleared?(at: number): void;
}

export class Playback {
  private chain: Promise<void> = Promise.resolve();
  private playEnd = 0;
  private failure: Error | undefined;
  /** PCM bytes queued and not yet taken by the sink */
  private pending = 0;
  private onRoom: (() => void) | undefined;
  /** PCM bytes handed to the sink */
  bytes = 0;
  clears = 0;
  readonly listeners: PlaybackListener[] = [];

  constructor(
    private readonly sink: AudioSink | undefined,
    private readonly encoding: 'pcm' | 'mulaw' | 'alaw',
    private readonly sampleRate: number,
  ) {}

  /** is there somewhere the audio goes (a speaker, a file, stdout)? */
  get hasSink(): boolean {
    return !!this.sink;
  }

  private get realTime(): boolean {
    return this.sink?.kind === 'speaker';
  }

  /**
   * Queue wire bytes of the session's output format (received from the socket at `receivedAt`, taken up by the
   * session at `handledAt`: its base64 decoded from there), part of the answer's item `stream`; returns their length
   * in ms of audio.
   */
  write(wire: Buffer, receivedAt = performance.now(), handledAt = receivedAt, stream?: string): number {
    if (wire.length === 0) return 0;
    const pcm = decodeSamples(wire, this.encoding);
    const now = performance.now();
    for (const l of this.listeners) l.queued?.(pcm, now, stream);
    const ms = (pcm.length / 2 / this.sampleRate) * 1000;
    if (!this.sink) return ms;
    const steps = { handledAt, queuedAt: now };
    const handed = () => {
      const at = performance.now();
      for (const l of this.listeners) l.handed?.(receivedAt, at, steps);
    };
    if (this.realTime) this.playEnd = Math.max(performance.now(), this.playEnd) + ms;
    this.bytes += pcm.length;
    const sink = this.sink;
    this.pending += pcm.length;
    this.chain = this.chain
      .then(() => sink.write(pcm, handed))
      .catch((err: Error) => {
        this.failure ??= err;
      })
      .then(() => this.taken(pcm.length));
    return ms;
  }

  /** ms of the audio written that a speaker has not played yet (0 for a file or pipe: written is done) */
  unplayedMs(): number {
    return this.realTime && this.playEnd > 0 ? Math.max(0, this.playEnd - performance.now()) : 0;
  }

  private get aheadLimit(): number {
    return this.realTime ? this.sampleRate * 2 * SPEAKER_AHEAD_SECONDS : AHEAD_BYTES;
  }

  private taken(bytes: number): void {
    this.pending -= bytes;
    if (this.pending <= this.aheadLimit / 2) this.release();
  }

  /**
   * Undefined while the sink keeps up; past the bound, a promise that resolves once half of what is queued was taken
   * (or at release()): the session awaits it before reading the next event, so that memory does not hold the audio.
   */
  room(): Promise<void> | undefined {
    if (this.pending <= this.aheadLimit) return undefined;
    return new Promise((resolve) => {
      const before = this.onRoom;
      this.onRoom = () => {
        before?.();
        resolve();
      };
    });
  }

  /** Whoever waits for room goes on (the session ends). */
  release(): void {
    const wake = this.onRoom;
    this.onRoom = undefined;
    wake?.();
  }

  /** Stop playback now (barge-in). */
  clear(): void {
    this.clears++;
    this.playEnd = 0;
    const now = performance.now();
    for (const l of this.listeners) l.cleared?.(now);
    this.sink?.clear();
  }

  /** Is audio still being heard? */
  get playing(): boolean {
    return this.realTime && this.playEnd > 0 && performance.now() < this.playEnd + DEVICE_TAIL_MS;
  }

  /** Resolves when what was written has been handed on and (on a speaker) played. */
  async drained(signal?: AbortSignal): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure;
    const wait = this.playEnd > 0 ? this.playEnd + DEVICE_TAIL_MS - performance.now() : 0;
    if (wait > 0 && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, wait);
        function done() {
          clearTimeout(t);
          signal?.removeEventListener('abort', done);
          resolve();
        }
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  async end(): Promise<void> {
    await this.chain;
    if (this.failure) {
      await this.abort();
      throw this.failure;
    }
    if (this.sink) await this.sink.end();
  }

  /** The session failed: stop playing; a recording file is not written (an existing one stays as it was). */
  async abort(): Promise<void> {
    await this.chain;
    await this.sink?.abort().catch(() => undefined);
  }
}
