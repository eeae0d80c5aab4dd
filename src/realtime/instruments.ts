// What measures and keeps a voice session besides the transcript: the turn meter (latencies per turn: --json
// events, --latency-log FILE), the live status line on a terminal, and the stereo recording (--record FILE).
import type { AtomicFile } from '../core/atomic-file.js';
import type { Context } from '../runtime/context.js';
import type { Playback } from './playback.js';
import type { ConversationRecording } from './recording.js';
import type { RealtimeSession } from './session.js';
import { StatusLine } from './status-line.js';
import type { TranscriptOut, TranscriptView } from './transcript.js';
import { TurnMeter, type SessionObserver, type TurnLatency } from './turn-meter.js';

export interface InstrumentFlags {
  latencyLog?: string;
  record?: string;
  /** replace existing files (--force) */
  force?: boolean;
}

export class SessionInstruments {
  readonly meter: TurnMeter;
  readonly status: StatusLine | undefined;
  private recording: ConversationRecording | undefined;
  /** --latency-log: a line appended as each turn ends, put in place at the end */
  private latencyLog: AtomicFile | undefined;
  private latencyWrites: Promise<void> = Promise.resolve();
  private latencyFailure: unknown;
  private session: RealtimeSession | undefined;
  /** the view that prints the --json events (set once it exists) */
  view: TranscriptView | undefined;
  /** the echo canceller's path (--aec): its drift measured is shown */
  echo: { readonly driftPpm: number | undefined } | undefined;

  private constructor(
    private readonly ctx: Context,
    private readonly playback: Playback,
    sampleRate: number,
    live: boolean,
  ) {
    this.meter = new TurnMeter({
      sampleRate,
      playsAudio: playback.hasSink,
      onTurn: (t) => this.turn(t),
    });
    playback.listeners.push({ handed: (r, h, steps) => this.meter.handed(r, h, steps) });
    this.status = live ? new StatusLine(ctx.streams.stderr, () => this.statusState(), ctx.out.ce) : undefined;
  }

  /**
   * The instruments of a session: the status line wherever stderr can be redrawn, a session of files included (as
   * the help says: someone at the terminal watches it run).
   */
  static async open(
    ctx: Context,
    f: InstrumentFlags & { input?: string; output?: string },
    playback: Playback,
    sampleRate: number,
  ): Promise<SessionInstruments> {
    const live = ctx.out.liveStderr;
    const inst = new SessionInstruments(ctx, playback, sampleRate, live);
    if (f.latencyLog) {
      const { AtomicFile } = await import('../core/atomic-file.js');
      inst.latencyLog = await AtomicFile.create(f.latencyLog, { replace: !!f.force });
    }
    if (f.record) {
      const { ConversationRecording } = await import('./recording.js');
      try {
        inst.recording = await ConversationRecording.create(f.record, sampleRate, !!f.force);
      } catch (err) {
        await inst.latencyLog?.discard();
        throw err;
      }
      playback.listeners.push(inst.recording);
    }
    return inst;
  }

  get observers(): SessionObserver[] {
    return this.recording ? [this.meter, this.recording] : [this.meter];
  }

  /** A writer of the transcript that keeps clear of the status line. */
  transcriptOut(out: TranscriptOut): TranscriptOut {
    return this.status ? this.status.wrap(out) : out;
  }

  /** A note or warning on stderr, kept clear of the status line. */
  around(write: () => void): void {
    if (this.status) this.status.around(write);
    else write();
  }

  start(session: RealtimeSession): void {
    this.session = session;
    this.status?.start();
  }

  private statusState() {
    const s = this.session;
    const you = this.meter.userSpeaking || !!s?.isTalking;
    const playing = this.playback.playing || !!s?.isAnswering;
    return {
      levelDb: this.meter.levelDb,
      speaker: you ? ('you' as const) : playing ? ('assistant' as const) : ('nobody' as const),
      muted: !!s?.isMuted,
      last: this.meter.last,
      driftPpm: this.echo?.driftPpm,
    };
  }

  private turn(t: TurnLatency): void {
    if (this.ctx.out.json) this.around(() => this.view?.event(t as unknown as Record<string, unknown>));
    this.status?.draw();
    const log = this.latencyLog;
    if (log) {
      const line = Buffer.from(`${JSON.stringify(t)}\n`);
      this.latencyWrites = this.latencyWrites
        .then(() => log.write(line))
        .catch((err) => {
          this.latencyFailure ??= err;
        });
    }
  }

  /**
   * The session is over: the status line goes; the latency log and the recording are put in place when it ended
   * well (Ctrl-C included), and left as they were when it failed (the rule for every file svc writes).
   */
  async finish(ok: boolean): Promise<void> {
    this.status?.stop();
    await this.latencyWrites;
    if (!ok || this.latencyFailure) {
      await this.latencyLog?.discard();
      await this.recording?.abort();
      if (ok) throw this.latencyFailure;
      return;
    }
    try {
      await this.latencyLog?.commit();
    } catch (err) {
      await this.recording?.abort();
      throw err;
    }
    await this.recording?.end();
  }
}
