// `svc audio test --aec`: the echo path of the user's own devices, measured as `realtime talk --aec` would meet it.
// A probe (noise in syllable-like bursts) plays on the speaker while the microphone records; the microphone's
// frames go through the same EchoPath as in a session (the probe as the reference, placed when it was written),
// with the start-up hold off so that the ERLE is the canceller's own. Reported: the echo's delay after the write,
// the clock drift (when the probe was long enough to measure one), the echo's level over the room's noise, the ERLE
// over the probe's second half, and a verdict.
import { performance } from 'node:perf_hooks';
import type { EchoPath } from './echo-canceller.js';
import { Pacer } from './pacing.js';
import type { AudioSink } from './sink.js';
import type { AudioSource } from './source.js';

/** silence is played first, while the room's noise is measured */
const LEAD_S = 1;
/** after the probe, the echo's tail is still recorded */
const TAIL_S = 0.5;
const WRITE_MS = 100;
/**
 * Written ahead at the start, as a session's answer arrives ahead of its playback: a device starts playing only once
 * its start threshold is filled (at real-time pace, the full-duplex test's device started 440-520 ms after the
 * first write: beyond the delay estimator's reach), and its queue never runs dry between two paced writes on a busy
 * machine (a gap restarts the playback with another delay, which the canceller must learn anew).
 */
const AHEAD_MS = 1000;
/** the verdict's bounds: the goal for a converged canceller, and the level where barge-in still works */
export const GOOD_ERLE_DB = 25;
const FAIR_ERLE_DB = 15;
/** an echo less than this over the room's noise is not one (headphones, a muted or distant speaker) */
const HEARD_DB = 6;

export interface EchoCheck {
  /** the echo's delay after the probe was written (the output's buffer, the room, the capture), ms */
  delay_ms: number | null;
  /** the speaker's clock against the microphone's, ppm (null: not measured within the probe) */
  drift_ppm: number | null;
  noise_dbfs: number;
  /** the microphone's level while the probe played */
  echo_dbfs: number;
  /** echo return loss enhancement over the probe's second half (null: no echo to cancel) */
  erle_db: number | null;
  verdict: 'no_echo' | 'good' | 'fair' | 'poor';
  /** the verdict in words */
  advice: string;
}

/** The probe: noise at about -20 dBFS in bursts of 200-400 ms with 60-120 ms gaps (as speech has), deterministic. */
export function echoProbe(rate: number, seconds: number): Int16Array {
  const out = new Int16Array(Math.round(rate * seconds));
  let seed = 43;
  const rand = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  let i = 0;
  let low = 0;
  while (i < out.length) {
    const on = Math.round(rate * (0.2 + rand() * 0.2));
    for (let k = 0; k < on && i < out.length; k++, i++) {
      // a gentle low-pass: the energy of a voice more than of a hiss; a raised-cosine envelope per burst
      low = 0.6 * low + 0.4 * (rand() * 2 - 1);
      const env = Math.sin((Math.PI * k) / on);
      out[i] = Math.round(low * env * 9000);
    }
    i += Math.round(rate * (0.06 + rand() * 0.06));
  }
  return out;
}

function energy(pcm: Int16Array): number {
  let s = 0;
  for (let i = 0; i < pcm.length; i++) s += pcm[i]! * pcm[i]!;
  return s;
}

const dbfs = (e: number, n: number) => (n && e > 0 ? Math.round(10 * Math.log10(e / n / 32768 ** 2) * 10) / 10 : -120);

/**
 * Play `seconds` of the probe on `sink` while `source` records; every captured frame through `path`. The source
 * and the sink are closed here.
 */
export async function checkEcho(
  source: AudioSource,
  sink: AudioSink,
  path: EchoPath,
  o: { rate: number; seconds: number; signal: AbortSignal },
): Promise<EchoCheck> {
  const lead = Math.round(o.rate * LEAD_S);
  const probe = new Int16Array(lead + Math.round(o.rate * o.seconds));
  probe.set(echoProbe(o.rate, o.seconds), lead);
  // where the probe's second half lies on the capture's count of samples (it starts once the noise was measured)
  let probeFrom = Number.POSITIVE_INFINITY;
  let noise = 0;
  let noiseN = 0;
  let mic = 0;
  let cleaned = 0;
  let micN = 0;
  let captured = 0;
  let playing: Promise<void> | undefined;
  let played = false;
  const play = () =>
    playProbe(probe, sink, path, o).finally(() => {
      played = true;
    });
  let tailFrom = Number.POSITIVE_INFINITY;
  try {
    for await (const frame of source.frames(40)) {
      if (o.signal.aborted) break;
      const at = performance.now();
      const raw = new Int16Array(Uint8Array.from(frame).buffer);
      const out = path.captured(frame, at);
      const clean = new Int16Array(out.buffer, out.byteOffset, out.byteLength / 2);
      if (!playing) {
        // the probe's second half on the capture's count of samples
        probeFrom = captured + lead + Math.round(o.rate * (o.seconds / 2));
        playing = play();
        // a failure of the speaker ends the recording too
        playing.catch(() => source.close());
      }
      if (captured < probeFrom - Math.round(o.rate * (o.seconds / 2))) {
        noise += energy(raw);
        noiseN += raw.length;
      } else if (captured >= probeFrom && !played) {
        mic += energy(raw);
        cleaned += energy(clean);
        micN += raw.length;
      }
      captured += raw.length;
      if (played && tailFrom === Number.POSITIVE_INFINITY) tailFrom = captured;
      if (captured >= tailFrom + o.rate * TAIL_S) break;
    }
  } finally {
    await source.close();
  }
  await playing;
  if (!micN && !o.signal.aborted)
    throw new Error('the microphone stopped before the probe was heard: `svc audio test` without --aec checks it');
  return verdictOf(path, { noise, noiseN, mic, cleaned, micN });
}

/** The figures of a check and what they mean: the delay and drift the path found, the levels, the ERLE reached. */
function verdictOf(
  path: EchoPath,
  m: { noise: number; noiseN: number; mic: number; cleaned: number; micN: number },
): EchoCheck {
  const { noise, noiseN, mic, cleaned, micN } = m;
  const noiseDb = dbfs(noise, noiseN);
  const echoDb = dbfs(mic, micN);
  const delay = path.echoDelayMs;
  const heard = micN > 0 && echoDb - noiseDb >= HEARD_DB;
  const erle = heard && cleaned > 0 ? Math.round(10 * Math.log10(mic / cleaned) * 10) / 10 : null;
  const drift = path.driftPpm;
  const base = {
    delay_ms: delay === undefined ? null : Math.round(delay * 10) / 10,
    drift_ppm: drift === undefined ? null : Math.round(drift),
    noise_dbfs: noiseDb,
    echo_dbfs: echoDb,
    erle_db: erle,
  };
  if (!heard || erle === null)
    return {
      ...base,
      verdict: 'no_echo',
      advice:
        'the microphone did not hear the speaker (headphones, or a muted or distant speaker): ' +
        'no echo to cancel, --no-aec is fine',
    };
  if (erle >= GOOD_ERLE_DB)
    return { ...base, verdict: 'good', advice: 'the echo is cancelled: barge-in works on these speakers with --aec' };
  if (erle >= FAIR_ERLE_DB)
    return {
      ...base,
      verdict: 'fair',
      advice: 'the echo is mostly cancelled; a louder speaker or a quieter room may let the agent hear itself',
    };
  return {
    ...base,
    verdict: 'poor',
    advice:
      'the echo is not cancelled well: use headphones, lower the speaker, or choose a device that cancels echo ' +
      'itself (--input-device)',
  };
}

/** The probe on the speaker, paced as a real-time source is (the first AHEAD_MS written at once). */
async function playProbe(
  probe: Int16Array,
  sink: AudioSink,
  path: EchoPath,
  o: { rate: number; signal: AbortSignal },
): Promise<void> {
  const pacer = new Pacer(WRITE_MS);
  const n = Math.round((o.rate * WRITE_MS) / 1000);
  const ahead = Math.round((o.rate * AHEAD_MS) / 1000);
  try {
    for (let at = 0; at < probe.length && !o.signal.aborted; at += n) {
      if (at >= ahead) await pacer.tick(o.signal);
      const chunk = probe.subarray(at, at + n);
      const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      path.played(buf, performance.now());
      await sink.write(buf);
    }
    await sink.end();
  } catch (err) {
    await sink.abort();
    throw err;
  }
}
