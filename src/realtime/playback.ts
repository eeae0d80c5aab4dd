// The session's audio on its way out: wire bytes (pcm16 / mu-law / A-law) decoded to PCM for the sink,
// writes kept in order, and a playback clock. A speaker plays in real time, so "the assistant is still
// speaking" lasts until the audio written so far has been heard (plus the device's buffering); a file or
// pipe is done once written.
import { performance } from 'node:perf_hooks';
import type { AudioSink } from '../audio/sink.js';
import { decodeSamples } from 'svc-formats/audio-codecs';

/** What a sound card still holds after the last write was handed on (ALSA buffer), heard after it. */
const DEVICE_TAIL_MS = 250;

export class Playback {
  private chain: Promise<void> = Promise.resolve();
  private playEnd = 0;
  private failure: Error | undefined;
  /** PCM bytes handed to the sink */
  bytes = 0;
  clears = 0;

  constructor(
    private readonly sink: AudioSink | undefined,
    private readonly encoding: 'pcm' | 'mulaw' | 'alaw',
    private readonly sampleRate: number,
  ) {}

  private get realTime(): boolean {
    return this.sink?.kind === 'speaker';
  }

  /** Queue wire bytes of the session's output format. */
  write(wire: Buffer): void {
    if (!this.sink || wire.length === 0) return;
    const pcm = decodeSamples(wire, this.encoding);
    const ms = (pcm.length / 2 / this.sampleRate) * 1000;
    if (this.realTime) this.playEnd = Math.max(performance.now(), this.playEnd) + ms;
    this.bytes += pcm.length;
    const sink = this.sink;
    this.chain = this.chain
      .then(() => sink.write(pcm))
      .catch((err: Error) => {
        this.failure ??= err;
      });
  }

  /** Stop playback now (barge-in). */
  clear(): void {
    this.clears++;
    this.playEnd = 0;
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
