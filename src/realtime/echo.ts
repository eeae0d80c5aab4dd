// Echo cancellation between the local audio ends and the session (`--aec`): the speaker's sink tells the canceller
// what it is handed and when (the reference, placed on the capture's clock by EchoPath), and the microphone's
// frames come out of it cleaned of that echo. Both ends are wrapped, so the session and the playback are unchanged.
import type { EchoPath } from '../audio/echo-canceller.js';
import { performance } from 'node:perf_hooks';
import type { AudioSink } from '../audio/sink.js';
import type { AudioSource, FrameStamp } from '../audio/source.js';

/** Is the echo canceller wanted: --aec / --no-aec, else on in full duplex with the microphone and the speaker. */
export function echoCancelWanted(f: { aec?: boolean; duplex?: boolean; input?: string; output?: string }): boolean {
  const local = f.input === 'mic' && f.output === 'speaker';
  return local && (f.aec ?? !!f.duplex);
}

/** The canceller opened for this session's format (speexdsp's WebAssembly build, compiled now). */
export async function openEchoPath(sampleRate: number): Promise<EchoPath> {
  const { EchoPath } = await import('../audio/echo-canceller.js');
  return EchoPath.open({ sampleRate });
}

/** The sink, telling `path` what it plays (and when it stops: barge-in). */
export function referenceSink(sink: AudioSink, path: EchoPath): AudioSink {
  return {
    kind: sink.kind,
    format: sink.format,
    codec: sink.codec,
    write(pcm, handed) {
      path.played(pcm);
      // handed on: the turn meter's moment of the first audio at the device (dropped here, no turn was ever ended)
      return sink.write(pcm, handed);
    },
    clear() {
      path.cleared();
      sink.clear();
    },
    end: () => sink.end(),
    abort: () => sink.abort(),
  };
}

/** The source, its frames cleaned by `path`; the canceller is freed once the frames end (or at close, unread). */
export function cancelledSource(source: AudioSource, path: EchoPath): AudioSource {
  let read = false;
  // the capture time is taken before the canceller, so that its block and its work count in the latency readout
  const stamps = new WeakMap<Buffer, FrameStamp>();
  return {
    kind: source.kind,
    format: source.format,
    get inputFormat() {
      return source.inputFormat;
    },
    get muted() {
      return source.muted;
    },
    container: source.container,
    setMuted: (m) => source.setMuted(m),
    frames(frameMs) {
      read = true;
      const frames = source.frames(frameMs);
      return (async function* () {
        try {
          for await (const frame of frames) {
            const capturedAt = performance.now();
            const [heldBefore, suppressedBefore] = [path.heldMs, path.suppressedMs];
            const cleaned = path.captured(frame, capturedAt);
            const processMs = performance.now() - capturedAt;
            const heldMs = path.heldMs - heldBefore;
            const suppressedMs = path.suppressedMs - suppressedBefore;
            stamps.set(cleaned, { capturedAt, processMs, lagMs: path.lagMs, heldMs, suppressedMs });
            yield cleaned;
          }
        } finally {
          path.free();
        }
      })();
    },
    async close() {
      await source.close();
      if (!read) path.free();
    },
    stampOf: (frame) => stamps.get(frame),
  };
}
