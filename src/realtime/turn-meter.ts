// The latencies of each turn of a voice session, and what the status line shows (input level, who speaks).
// Every moment is taken on the monotonic clock (performance.now()) where it happens in this process:
// - a frame captured: the source yielded it (the microphone's pipe, or a file paced at real time); with --aec the
//   raw frame before the canceller, less the canceller's lag (its cleaned audio is that much older);
// - a frame on the socket: input_audio_buffer.append handed to the socket (WsConnection.send returned);
// - end of speech: with server VAD, the capture time of the audio at `audio_end_ms − silence_duration_ms` of
//   speech_stopped (the server's audio clock counts the audio sent, and its audio_end_ms includes the silence
//   that ended the turn); with push-to-talk, the release (the commit sent);
// - an event received: the socket handed the message over (WsMessage.receivedAt);
// - first audio to the device: the first audio delta's samples were taken by the device (speaker: its native
//   write to ALSA returned; a file or stdout: the write completed).
import type { FrameStamp } from '../audio/source.js';
import type { ServerEvent } from '../endpoints/realtime.js';

export interface TurnLatency {
  type: 'svc.turn.latency';
  turn: number;
  response_id: string | null;
  /** how the end of the user's speech was found: server VAD, push-to-talk release, none (an answer after a tool) */
  speech_end: 'server_vad' | 'push_to_talk' | 'none';
  /** end of speech → first audio delta received */
  speech_end_to_first_audio_ms: number | null;
  /** end of speech → speech_stopped received (the VAD's silence, the network, the server's detection) */
  vad_ms: number | null;
  /** speech_stopped received, or the commit / response.create sent → first audio delta received */
  response_ms: number | null;
  /** first audio delta received → its samples taken by the device (or written to the file / stdout) */
  first_audio_to_device_ms: number | null;
  /**
   * client-added on the way out: the longest time from a frame captured to it handed to the socket, among the frames
   * of this turn's speech (from speech_started; push-to-talk: since the last turn)
   */
  capture_to_socket_ms: number | null;
  /** client-added, both ways: capture_to_socket_ms + first_audio_to_device_ms */
  client_added_ms: number | null;
  /**
   * what svc adds, stage by stage. Out (the frame of capture_to_socket_ms): the frame's own length (its first sample
   * waits for it; not in client_added_ms), the echo canceller (its block and its work; 0 without --aec), the coding
   * of the event, the socket's send; they add up to capture_to_socket_ms. In (the turn's first audio): from the
   * socket to the session taking it up, decoding, the playback queue to the device; they add up to
   * first_audio_to_device_ms.
   */
  stages: {
    out: { capture_block_ms: number; canceller_ms: number; encode_ms: number; socket_ms: number } | null;
    in: { socket_ms: number; decode_ms: number; playback_queue_ms: number } | null;
  };
  /**
   * --aec: how long the echo canceller's start-up hold held the microphone down since the previous turn's record
   * (the user not heard meanwhile; null without --aec)
   */
  aec_hold_ms: number | null;
  /**
   * --aec: how long the start-up suppressor worked on the microphone since the previous turn's record (the echo
   * predicted from the playback held down, the user heard where louder; null without --aec)
   */
  aec_suppress_ms: number | null;
  /** the server's own figures, as sent (audio clock positions of speech_started / speech_stopped) */
  server: { audio_start_ms?: number; audio_end_ms?: number; silence_duration_ms?: number };
}

/** The stages of a frame on its way out (ms): the canceller (its lag and work), the event's coding, the send. */
export interface OutStages {
  cancellerMs: number;
  encodeMs: number;
  socketMs: number;
}

interface SentFrame {
  /** server audio clock: ms of input audio sent before this frame, and after it */
  startMs: number;
  endMs: number;
  capturedAt: number;
}

interface OpenTurn {
  speechEnd: 'server_vad' | 'push_to_talk' | 'none';
  speechEndAt?: number;
  stoppedAt?: number;
  requestedAt?: number;
  responseId?: string;
  firstAudioAt?: number;
  server: TurnLatency['server'];
}

type Stages = TurnLatency['stages'];

const KEEP_FRAMES = 1500;
const round = (ms: number | undefined) => (ms === undefined ? null : Math.round(ms * 10) / 10);

/** What watches a session as it runs (the turn meter, the recording); every moment on performance.now(). */
export interface SessionObserver {
  /** a frame of PCM s16le came from the source at `at` (`stamp`: its moments before, with --aec) */
  captured?(frame: Buffer, at: number, stamp?: FrameStamp): void;
  /** the source has no more frames (a file or stdin at its end) */
  inputEnded?(): void;
  /** the frame captured at `capturedAt` (`pcmBytes` of PCM) was handed to the socket at `at` */
  sent?(pcmBytes: number, capturedAt: number, at: number, stages?: OutStages): void;
  configured?(session: Record<string, any> | undefined): void;
  event?(ev: ServerEvent, receivedAt: number): void;
  /** an audio delta that is played (not one of an interrupted answer) */
  audio?(responseId: string | undefined, receivedAt: number): void;
  released?(at: number): void;
  requested?(at: number): void;
}

export class TurnMeter implements SessionObserver {
  /** RMS level of the last frame captured, dBFS (−∞ for silence) */
  levelDb = Number.NEGATIVE_INFINITY;
  userSpeaking = false;
  assistantAudible = false;
  /** the latest turn's figures (each goes to onTurn as it ends: a session of hours keeps none of the others) */
  last: TurnLatency | undefined;
  private count = 0;
  private sentMs = 0;
  private readonly frames: SentFrame[] = [];
  private maxCaptureToSocket: number | undefined;
  private maxStages: Stages['out'] = null;
  /** the echo canceller's start-up hold and suppressor since the last turn (undefined without --aec) */
  private heldMs: number | undefined;
  private suppressedMs: number | undefined;
  private open: OpenTurn | undefined;
  private pendingSpeech: TurnLatency['server'] = {};
  private silenceMs = 500;

  constructor(
    private readonly o: {
      /** milliseconds of audio per byte of PCM sent (the input's sample rate) */
      sampleRate: number;
      /** is the answer's audio played or written anywhere? (else a turn ends at its first delta) */
      playsAudio: boolean;
      onTurn: (t: TurnLatency) => void;
      onChange?: () => void;
    },
  ) {}

  /** A frame of PCM s16le came from the source. */
  captured(frame: Buffer, _at?: number, stamp?: FrameStamp): void {
    if (stamp) {
      this.heldMs = (this.heldMs ?? 0) + stamp.heldMs;
      this.suppressedMs = (this.suppressedMs ?? 0) + stamp.suppressedMs;
    }
    this.levelDb = levelDb(frame);
    this.o.onChange?.();
  }

  /** The frame captured at `capturedAt` was handed to the socket (`pcmBytes` of PCM, before any G.711 coding). */
  sent(pcmBytes: number, capturedAt: number, at: number, stages?: OutStages): void {
    const ms = (pcmBytes / 2 / this.o.sampleRate) * 1000;
    this.frames.push({ startMs: this.sentMs, endMs: this.sentMs + ms, capturedAt });
    this.sentMs += ms;
    if (this.frames.length > KEEP_FRAMES) this.frames.splice(0, this.frames.length - KEEP_FRAMES);
    if (this.maxCaptureToSocket !== undefined && at - capturedAt <= this.maxCaptureToSocket) return;
    this.maxCaptureToSocket = at - capturedAt;
    this.maxStages = {
      capture_block_ms: round(ms)!,
      canceller_ms: round(stages?.cancellerMs ?? 0)!,
      encode_ms: round(stages?.encodeMs ?? at - capturedAt)!,
      socket_ms: round(stages?.socketMs ?? 0)!,
    };
  }

  /** When the audio at `posMs` of the server's audio clock was captured. */
  private capturedAtPosition(posMs: number): number | undefined {
    if (!this.frames.length) return undefined;
    const f = this.frames.find((s) => posMs <= s.endMs) ?? this.frames[this.frames.length - 1]!;
    return f.capturedAt - Math.max(0, f.endMs - Math.max(posMs, f.startMs));
  }

  /** The session's configuration as the server accepted it (the VAD's silence that ends a turn). */
  configured(session: Record<string, any> | undefined): void {
    const ms = session?.turn_detection?.silence_duration_ms;
    if (typeof ms === 'number') this.silenceMs = ms;
  }

  /** A server event, received at `at`. */
  event(ev: ServerEvent, at: number): void {
    switch (ev.type) {
      case 'input_audio_buffer.speech_started':
        this.userSpeaking = true;
        // the frames of this turn's speech are the ones that count for capture_to_socket_ms
        this.maxCaptureToSocket = undefined;
        this.maxStages = null;
        this.pendingSpeech = typeof ev.audio_start_ms === 'number' ? { audio_start_ms: ev.audio_start_ms } : {};
        this.o.onChange?.();
        return;
      case 'input_audio_buffer.speech_stopped': {
        this.userSpeaking = false;
        const server = { ...this.pendingSpeech, silence_duration_ms: this.silenceMs };
        let speechEndAt: number | undefined;
        if (typeof ev.audio_end_ms === 'number') {
          server.audio_end_ms = ev.audio_end_ms;
          speechEndAt = this.capturedAtPosition(ev.audio_end_ms - this.silenceMs);
        }
        this.open = { speechEnd: 'server_vad', speechEndAt, stoppedAt: at, server };
        this.o.onChange?.();
        return;
      }
      case 'session.updated':
        this.configured(ev.session);
        return;
      case 'response.created':
        this.open ??= { speechEnd: 'none', server: {} };
        this.open.responseId ??= ev.response?.id;
        return;
      default:
        return;
    }
  }

  /** Push-to-talk released: the commit (and response.create) went out at `at`. */
  released(at: number): void {
    this.open = { speechEnd: 'push_to_talk', speechEndAt: at, requestedAt: at, server: {} };
  }

  /** The client asked for an answer itself (response.create after a tool's output). */
  requested(at: number): void {
    this.open ??= { speechEnd: 'none', server: {} };
    this.open.requestedAt = at;
  }

  /** An audio delta of `responseId` received at `at`. */
  audio(responseId: string | undefined, at: number): void {
    const t = this.open;
    if (!t || t.firstAudioAt !== undefined) return;
    t.firstAudioAt = at;
    t.responseId = responseId ?? t.responseId;
    if (!this.o.playsAudio) this.finish(undefined);
  }

  /** Audio received at `receivedAt` reached the device at `handedAt` (Playback's listener). */
  handed(receivedAt: number, handedAt: number, steps?: { handledAt: number; queuedAt: number }): void {
    const t = this.open;
    if (!t || t.firstAudioAt === undefined || receivedAt < t.firstAudioAt) return;
    const stages = steps && {
      socket_ms: round(steps.handledAt - receivedAt)!,
      decode_ms: round(steps.queuedAt - steps.handledAt)!,
      playback_queue_ms: round(handedAt - steps.queuedAt)!,
    };
    this.finish(handedAt, stages);
  }

  setAssistantAudible(on: boolean): void {
    if (on === this.assistantAudible) return;
    this.assistantAudible = on;
    this.o.onChange?.();
  }

  private finish(handedAt: number | undefined, inStages: Stages['in'] = null): void {
    const t = this.open!;
    this.open = undefined;
    const first = t.firstAudioAt!;
    const from = t.requestedAt ?? t.stoppedAt;
    const toDevice = handedAt === undefined ? undefined : handedAt - first;
    const capture = t.speechEnd === 'none' ? undefined : this.maxCaptureToSocket;
    const outStages = t.speechEnd === 'none' ? null : this.maxStages;
    this.maxCaptureToSocket = undefined;
    this.maxStages = null;
    const latency: TurnLatency = {
      type: 'svc.turn.latency',
      turn: ++this.count,
      response_id: t.responseId ?? null,
      speech_end: t.speechEnd,
      speech_end_to_first_audio_ms: round(t.speechEndAt === undefined ? undefined : first - t.speechEndAt),
      vad_ms: round(t.speechEndAt !== undefined && t.stoppedAt !== undefined ? t.stoppedAt - t.speechEndAt : undefined),
      response_ms: round(from === undefined ? undefined : first - from),
      first_audio_to_device_ms: round(toDevice),
      capture_to_socket_ms: round(capture),
      client_added_ms: round(capture !== undefined && toDevice !== undefined ? capture + toDevice : undefined),
      stages: { out: outStages, in: inStages },
      aec_hold_ms: this.heldMs === undefined ? null : round(this.heldMs)!,
      aec_suppress_ms: this.suppressedMs === undefined ? null : round(this.suppressedMs)!,
      server: t.server,
    };
    if (this.heldMs !== undefined) this.heldMs = 0;
    if (this.suppressedMs !== undefined) this.suppressedMs = 0;
    this.last = latency;
    this.o.onTurn(latency);
    this.o.onChange?.();
  }
}

/** RMS of PCM s16le in dBFS (a full-scale sine is −3 dB). */
export function levelDb(pcm: Buffer): number {
  const n = Math.floor(pcm.length / 2);
  if (n === 0) return Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const v = pcm.readInt16LE(i * 2) / 32768;
    sum += v * v;
  }
  const rms = Math.sqrt(sum / n);
  return rms > 0 ? 20 * Math.log10(rms) : Number.NEGATIVE_INFINITY;
}
