// One realtime voice session on an open `/v1/realtime` WebSocket: configures it (session.update), streams
// the input audio (input_audio_buffer.append), plays the answers, prints the transcripts, runs function
// calls as local commands, and ends when the input is exhausted, the server closes (a call ended) or stop()
// is called. Turn taking:
// - half-duplex (default): no input frame is sent from response.created until the answer has been played,
//   so the assistant cannot hear itself;
// - duplex: input always flows; at input_audio_buffer.speech_started playback stops (barge-in);
// - push-to-talk: no server VAD; frames flow only while talking; releasing commits and asks for an answer.
import { performance } from 'node:perf_hooks';
import { encodeSamples } from 'svc-formats/audio-codecs';
import { Pacer } from '../audio/pacing.js';
import type { AudioSource, FrameStamp } from '../audio/source.js';
import { errorFromEvent, type ServerEvent, type SessionUpdate } from '../endpoints/realtime.js';
import { isAudioDelta, isTranscriptDelta, isTranscriptDone } from '../core/realtime-events.js';
import { IncompleteError, NetworkError } from '../core/errors.js';
import { DECLINED, runToolCommand } from '../cmdutil/local-tools.js';
import type { McpServers } from '../mcp/client.js';
import { closeNote, type WsConnection } from '../net/ws.js';
import type { Playback } from './playback.js';
import type { TranscriptView } from './transcript.js';
import type { OutStages, SessionObserver } from './turn-meter.js';

export type TurnMode = 'half-duplex' | 'duplex' | 'push-to-talk';

export interface SessionOptions {
  conn: WsConnection;
  update: SessionUpdate;
  source?: AudioSource;
  /** how input frames are coded on the wire */
  inputEncoding: 'pcm' | 'mulaw' | 'alaw';
  playback: Playback;
  view: TranscriptView;
  mode: TurnMode;
  /** tool name → local command */
  commands: Map<string, string>;
  /** the tools of --mcp servers (their text results go back; images are not for a voice) */
  mcp?: McpServers;
  /** --approve: asked before each --tool-cmd / --mcp call; false declines it (DECLINED is the call's output) */
  approve?: (call: { name: string; arguments: string }) => Promise<boolean>;
  /** end once the input is exhausted and the last answer is done (files and pipes) */
  endWhenInputEnds: boolean;
  /**
   * a SIP call (calls join): the server's clean close (1000) is the call's end — a hang-up, a transfer — even in the
   * middle of an answer; only a cut session is an error
   */
  call?: boolean;
  /** notes for people (stderr) */
  note: (text: string) => void;
  warn: (text: string) => void;
  /** input frame length */
  frameMs?: number;
  /** quiet time after the input ended before the session is considered finished */
  settleMs?: number;
  toolTimeoutMs?: number;
  signal?: AbortSignal;
  /** the turn meter, the recording: told of frames, events and audio as they happen */
  observers?: SessionObserver[];
  /** the server accepted the configuration: the session is live (the "connected" note goes here, not before) */
  onReady?: (session: Record<string, any> | undefined) => void;
}

export interface SessionResult {
  reason: 'input-ended' | 'server-closed' | 'stopped';
  closeCode?: number;
  closeReason?: string;
  session?: Record<string, any>;
}

interface PendingCall {
  call_id: string;
  name: string;
  arguments: string;
}

export class RealtimeSession {
  private muted = false;
  private talking = false;
  private responseActive = false;
  private currentResponse: string | undefined;
  private readonly ignored = new Set<string>();
  private awaitingSince = 0;
  private pendingCalls: PendingCall[] = [];
  private toolsRunning = 0;
  private userSpeaking = false;
  private lastEventAt = performance.now();
  private stopped: SessionResult['reason'] | undefined;
  private failure: unknown;
  private unmuteGen = 0;
  private serverSession: Record<string, any> | undefined;
  /** the answer's item whose audio was played last, and how much of it (ms) was queued for playback */
  private playedItem: { id: string; responseId?: string; contentIndex: number; ms: number } | undefined;
  private configured = false;
  readonly stats = { appended: 0, dropped: 0, responses: 0, interruptions: 0, toolCalls: 0, eventsAfterReady: 0 };

  private readonly observers: SessionObserver[];

  constructor(private readonly o: SessionOptions) {
    this.observers = o.observers ?? [];
  }

  /** End the session (Ctrl-C, `q`): close the connection cleanly. */
  stop(): void {
    this.stopped ??= 'stopped';
    this.o.playback.release();
    this.o.conn.close(1000, 'client stopped');
  }

  /** Push-to-talk: the user starts or stops talking. */
  setTalking(on: boolean): void {
    if (this.o.mode !== 'push-to-talk' || on === this.talking) return;
    this.talking = on;
    if (on) {
      // talking over the answer stops it
      if (this.responseActive || this.o.playback.playing) this.bargeIn(true);
      this.setMuted(false);
      this.o.note('(talking… release space to send)');
    } else if (this.o.conn.isOpen) {
      this.o.conn.send({ type: 'input_audio_buffer.commit' });
      this.o.conn.send({ type: 'response.create' });
      this.awaitingSince = performance.now();
      for (const ob of this.observers) ob.released?.(this.awaitingSince);
    }
  }

  get isTalking(): boolean {
    return this.talking;
  }

  /** an answer is under way (from response.created to response.done) */
  get isAnswering(): boolean {
    return this.responseActive;
  }

  /** the input is held back (half-duplex while the assistant speaks) */
  get isMuted(): boolean {
    return this.muted;
  }

  private setMuted(m: boolean): void {
    this.muted = m;
    this.o.source?.setMuted(m);
  }

  async run(): Promise<SessionResult> {
    const { conn } = this.o;
    // --timeout bounds every wait for something the server owes: the start, the configuration, an answer in
    // progress or one asked for; a quiet stretch while nobody speaks is not a stall
    conn.awaiting = () => !this.configured || this.responseActive || this.awaitingSince > 0;
    const first = await conn.next();
    if (!first) throw new NetworkError(`the server closed the connection before the session started${closeNote(conn)}`);
    if (first.type !== 'json') throw new NetworkError('the server sent binary data before the session started');
    const created = first.data as ServerEvent;
    this.o.view.event(created);
    if (created.type === 'error') {
      conn.close();
      throw errorFromEvent(created);
    }
    conn.send({ type: 'session.update', session: this.o.update });
    // the configuration must be accepted before audio flows
    for (;;) {
      const m = await conn.next();
      if (!m)
        throw new NetworkError(
          `the server closed the connection while the session was being configured${closeNote(conn)}`,
        );
      if (m.type !== 'json') continue;
      const ev = m.data as ServerEvent;
      this.o.view.event(ev);
      if (ev.type === 'error') {
        conn.close();
        throw errorFromEvent(ev);
      }
      if (ev.type === 'session.updated') {
        this.serverSession = ev.session;
        break;
      }
    }
    this.configured = true;
    for (const ob of this.observers) ob.configured?.(this.serverSession);
    this.o.onReady?.(this.serverSession);
    const pump = this.o.source ? this.pump().catch((err) => this.fail(err)) : Promise.resolve();
    try {
      for await (const m of conn) {
        if (m.type !== 'json') continue;
        this.lastEventAt = performance.now();
        if ((m.data as ServerEvent).type !== 'ping') this.stats.eventsAfterReady++;
        await this.handle(m.data as ServerEvent, m.receivedAt ?? performance.now());
      }
    } catch (err) {
      if (!this.stopped) {
        // what arrived of the answer is kept (in a pipe a turn is printed when it is complete: now, as it stands)
        this.keepPartial('[incomplete]');
        throw err;
      }
    } finally {
      this.stopped ??= 'server-closed';
      await this.o.source?.close();
      await pump;
    }
    this.checkEnd(conn);
    return {
      reason: this.stopped,
      closeCode: conn.closeCode,
      closeReason: conn.closeReason,
      session: this.serverSession,
    };
  }

  /**
   * How the session ended, once the connection is closed: a failure met on the way, a mute server, a close in the
   * middle of an answer (an error, except for a call, whose clean close is its end) are thrown; what arrived of an
   * answer in progress is printed as it stands.
   */
  private checkEnd(conn: WsConnection): void {
    if (this.failure) throw this.failure;
    if (this.stopped === 'stopped') this.keepPartial('[interrupted]');
    if (this.stopped === 'input-ended' && this.stats.appended > 0 && this.stats.eventsAfterReady === 0) {
      // audio went out and nothing at all came back (no speech detected, no answer): a mute server, not a conversation
      const seconds = ((this.stats.appended * (this.o.frameMs ?? 40)) / 1000).toFixed(1);
      throw new IncompleteError(
        `no answer: the server said nothing after the session started (${seconds} s of audio sent; no speech ` +
          `detected, no response)`,
      );
    }
    if (this.stopped !== 'server-closed' || !this.responseActive) return;
    if (this.o.call && conn.closeCode === 1000) {
      // the call ended (the caller hung up, it was transferred) while the agent spoke: the end of a call
      this.keepPartial('[call ended]');
      return;
    }
    this.keepPartial('[incomplete]');
    throw new IncompleteError(
      `the server closed the session in the middle of an answer, before response.done${closeNote(conn)}: ` +
        `the answer is incomplete`,
    );
  }

  /** The answer in progress, printed as it stands with `note` (a pipe prints a turn only once it is complete). */
  private keepPartial(note: string): void {
    if (this.o.view.hasPartial) this.o.view.interrupted(note);
  }

  private fail(err: unknown): void {
    this.failure ??= err;
    this.stopped ??= 'stopped';
    this.o.playback.release();
    this.o.conn.close(1000, 'client error');
  }

  private shouldSend(): boolean {
    if (!this.o.conn.isOpen || this.stopped) return false;
    if (this.o.mode === 'push-to-talk') return this.talking;
    return !this.muted;
  }

  private sendFrame(frame: Buffer, capturedAt = performance.now(), stamp?: FrameStamp): void {
    if (!this.shouldSend()) {
      this.stats.dropped++;
      return;
    }
    const wire = this.o.inputEncoding === 'pcm' ? frame : encodeSamples(frame, this.o.inputEncoding);
    const event = { type: 'input_audio_buffer.append' as const, audio: wire.toString('base64') };
    const encoded = performance.now();
    this.o.conn.send(event);
    this.stats.appended++;
    if (this.observers.length) {
      const at = performance.now();
      const ready = stamp ? stamp.capturedAt + stamp.processMs : capturedAt;
      const stages: OutStages = {
        cancellerMs: stamp ? stamp.lagMs + stamp.processMs : 0,
        // from the frame ready (after the canceller) to the event built: the hand-over to the pump, the coding
        encodeMs: encoded - ready,
        socketMs: at - encoded,
      };
      for (const ob of this.observers) ob.sent?.(frame.length, capturedAt, at, stages);
    }
  }

  /** Input frames to the server; then, for files and pipes, the end of the session. */
  private async pump(): Promise<void> {
    const frameMs = this.o.frameMs ?? 40;
    const source = this.o.source!;
    for await (const frame of source.frames(frameMs)) {
      if (this.stopped) return;
      // a cleaned frame (--aec) was captured before the canceller, and its audio lags that by the canceller's block
      const stamp = source.stampOf?.(frame);
      const capturedAt = stamp ? stamp.capturedAt - stamp.lagMs : performance.now();
      for (const ob of this.observers) ob.captured?.(frame, capturedAt, stamp);
      this.sendFrame(frame, capturedAt, stamp);
    }
    if (this.stopped) return;
    for (const ob of this.observers) ob.inputEnded?.();
    if (!this.o.endWhenInputEnds) return;
    // Trailing silence lets server VAD end a turn that runs to the end of the input.
    const td = this.serverSession?.turn_detection ?? this.o.update.turn_detection;
    if (this.o.mode !== 'push-to-talk' && td !== null) {
      const ms = (typeof td?.silence_duration_ms === 'number' ? td.silence_duration_ms : 500) + 300;
      const silence = Buffer.alloc(
        Math.round((source.format.sampleRate * frameMs) / 1000) * 2 * source.format.channels,
      );
      const pacer = new Pacer(frameMs);
      for (let t = 0; t < ms && !this.stopped; t += frameMs) {
        await pacer.tick(this.o.signal);
        this.sendFrame(silence);
      }
    }
    await this.settle();
    if (!this.stopped) {
      this.stopped = 'input-ended';
      await this.o.playback.drained(this.o.signal);
      this.o.conn.close(1000, 'input ended');
    }
  }

  /** Wait until nothing is going on: no speech, no answer, no tool, nothing awaited, and quiet for a moment. */
  private async settle(): Promise<void> {
    const settleMs = this.o.settleMs ?? 600;
    for (;;) {
      if (this.stopped) return;
      const now = performance.now();
      if (this.awaitingSince && now - this.awaitingSince > 20_000) this.awaitingSince = 0;
      const busy =
        this.userSpeaking ||
        this.responseActive ||
        this.toolsRunning > 0 ||
        this.pendingCalls.length > 0 ||
        this.awaitingSince > 0 ||
        this.o.playback.playing;
      if (!busy && now - this.lastEventAt >= settleMs) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Stop the answer being played: the user talks over it. */
  private bargeIn(cancel: boolean): void {
    this.stats.interruptions++;
    if (this.currentResponse) this.ignored.add(this.currentResponse);
    if (cancel && this.responseActive) this.o.conn.send({ type: 'response.cancel' });
    // the server keeps only what was heard of the answer (its audio cut there, its unheard text dropped), so the
    // next answer does not build on words the user never heard
    // (an answer heard to its end keeps its text: nothing to cut)
    const item = this.playedItem;
    this.playedItem = undefined;
    const unplayed = this.o.playback.unplayedMs();
    const stillComing = this.responseActive && !!item && item.responseId === this.currentResponse;
    if (item && (unplayed > 0 || stillComing) && this.o.conn.isOpen) {
      const heard = Math.max(0, Math.floor(item.ms - unplayed));
      this.o.conn.send({
        type: 'conversation.item.truncate',
        item_id: item.id,
        content_index: item.contentIndex,
        audio_end_ms: heard,
      });
    }
    this.o.playback.clear();
    this.o.view.interrupted();
    this.o.note('(interrupted: playback stopped)');
  }

  /** The assistant's item whose audio is being played, and how much of it (what a barge-in truncates). */
  private countPlayed(ev: ServerEvent, ms: number): void {
    if (typeof ev.item_id !== 'string') return;
    const item =
      this.playedItem?.id === ev.item_id
        ? this.playedItem
        : { id: ev.item_id, responseId: ev.response_id, contentIndex: Number(ev.content_index) || 0, ms: 0 };
    item.ms += ms;
    this.playedItem = item;
  }

  private async handle(ev: ServerEvent, receivedAt: number): Promise<void> {
    const t = ev.type;
    this.o.view.event(ev);
    for (const ob of this.observers) ob.event?.(ev, receivedAt);
    if (isAudioDelta(t)) {
      if (ev.response_id && this.ignored.has(ev.response_id)) return;
      if (typeof ev.delta !== 'string') return;
      for (const ob of this.observers) ob.audio?.(ev.response_id, receivedAt);
      const item = typeof ev.item_id === 'string' ? ev.item_id : undefined;
      const ms = this.o.playback.write(Buffer.from(ev.delta, 'base64'), receivedAt, performance.now(), item);
      this.countPlayed(ev, ms);
      // a sink that is behind: the next event waits (the socket pauses, the server is held back)
      await this.o.playback.room();
      return;
    }
    if (isTranscriptDelta(t)) {
      if (ev.response_id && this.ignored.has(ev.response_id)) return;
      if (typeof ev.delta === 'string') this.o.view.assistantDelta(ev.delta);
      return;
    }
    if (isTranscriptDone(t)) {
      if (ev.response_id && this.ignored.has(ev.response_id)) return;
      this.o.view.assistantDone(
        typeof ev.transcript === 'string' ? ev.transcript : typeof ev.text === 'string' ? ev.text : undefined,
      );
      return;
    }
    switch (t) {
      case 'input_audio_buffer.speech_started':
        this.userSpeaking = true;
        if (this.o.mode === 'duplex' && (this.responseActive || this.o.playback.playing)) this.bargeIn(false);
        return;
      case 'input_audio_buffer.speech_stopped':
        this.userSpeaking = false;
        return;
      case 'input_audio_buffer.committed':
        this.userSpeaking = false;
        if (this.o.mode !== 'push-to-talk') this.awaitingSince = performance.now();
        return;
      case 'conversation.item.input_audio_transcription.completed':
        if (typeof ev.transcript === 'string') this.o.view.user(ev.transcript.trim());
        return;
      case 'response.created':
        this.responseActive = true;
        this.awaitingSince = 0;
        this.currentResponse = ev.response?.id;
        this.stats.responses++;
        if (this.o.mode === 'half-duplex') {
          this.unmuteGen++;
          this.setMuted(true);
        }
        return;
      case 'response.function_call_arguments.done':
        if (typeof ev.name === 'string' && typeof ev.call_id === 'string') {
          this.pendingCalls.push({
            call_id: ev.call_id,
            name: ev.name,
            arguments: typeof ev.arguments === 'string' ? ev.arguments : JSON.stringify(ev.arguments ?? {}),
          });
        }
        return;
      case 'response.done':
        return this.responseDone(ev);
      case 'session.updated':
        this.serverSession = ev.session;
        return;
      case 'error': {
        const e = errorFromEvent(ev);
        this.o.warn(`the session reported an error: ${e.message}${e.code ? ` (${e.code})` : ''}`);
        return;
      }
      default:
        return; // ping, item and part events, unknown types: skipped
    }
  }

  private responseDone(ev: ServerEvent): void {
    this.responseActive = false;
    const id = ev.response?.id ?? this.currentResponse;
    const status = ev.response?.status;
    const wasIgnored = id && this.ignored.has(id);
    // nothing of a response comes after its response.done: the id is forgotten (a long session barges in often)
    if (id) this.ignored.delete(id);
    if (this.o.view.hasPartial && !wasIgnored) {
      if (status === 'cancelled') this.o.view.interrupted();
      else this.o.view.assistantDone();
    }
    this.currentResponse = undefined;
    if (status === 'failed') {
      const err = ev.response?.status_details?.error;
      this.o.warn(`the answer failed${err?.message ? `: ${err.message}` : ''}`);
    }
    if (this.pendingCalls.length) {
      const calls = this.pendingCalls.splice(0);
      this.toolsRunning++;
      void this.runTools(calls)
        .catch((err) => this.fail(err))
        .finally(() => {
          this.toolsRunning--;
        });
      return;
    }
    this.releaseTurn();
  }

  /** Half-duplex: give the turn back to the user once the answer has been heard. */
  private releaseTurn(): void {
    if (this.o.mode !== 'half-duplex') return;
    const gen = ++this.unmuteGen;
    void this.o.playback
      .drained(this.o.signal)
      .catch((err) => this.fail(err))
      .then(() => {
        if (gen === this.unmuteGen && !this.responseActive && this.toolsRunning === 0) this.setMuted(false);
      });
  }

  private async runTools(calls: PendingCall[]): Promise<void> {
    for (const call of calls) {
      this.stats.toolCalls++;
      const command = this.o.commands.get(call.name);
      const bound = !!command || !!this.o.mcp?.has(call.name);
      let output: string;
      if (bound && this.o.approve && !(await this.o.approve(call))) {
        if (this.stopped) return;
        output = DECLINED;
        this.o.note(`(tool ${call.name} declined)`);
      } else if (!command && this.o.mcp?.has(call.name)) {
        this.o.note(`(tool ${call.name} ${call.arguments})`);
        const r = await this.o.mcp.call(call.name, call.arguments);
        output = r.isError ? JSON.stringify({ error: r.text }) : r.text;
        this.o.note(`(tool ${call.name} → ${output.length > 200 ? `${output.slice(0, 200)}…` : output})`);
      } else if (!command) {
        output = JSON.stringify({ error: `no local command for the tool ${call.name}` });
        this.o.warn(`the assistant called ${call.name}, which has no command: pass --tool-cmd ${call.name}=COMMAND`);
      } else {
        this.o.note(`(tool ${call.name} ${call.arguments})`);
        try {
          output = await runToolCommand(command, call.arguments, {
            signal: this.o.signal,
            timeoutMs: this.o.toolTimeoutMs,
          });
        } catch (err) {
          if (this.stopped) return;
          throw err;
        }
        this.o.note(`(tool ${call.name} → ${output.length > 200 ? `${output.slice(0, 200)}…` : output})`);
      }
      if (!this.o.conn.isOpen) return;
      this.o.conn.send({
        type: 'conversation.item.create',
        item: { type: 'function_call_output', call_id: call.call_id, output },
      });
    }
    if (!this.o.conn.isOpen) return;
    this.o.conn.send({ type: 'response.create' });
    this.awaitingSince = performance.now();
    for (const ob of this.observers) ob.requested?.(this.awaitingSince);
  }
}
