// Acoustic echo cancellation: speexdsp's echo canceller (MDF, a multidelay block frequency-domain adaptive filter)
// and its preprocessor (residual echo and noise suppression, fed the canceller's state), built to WebAssembly by
// scripts/build-aec.mjs (assets/speexdsp/aec.wasm, loaded on first use). EchoCanceller cleans a captured frame
// given the frame that played at the same time; EchoPath lines the playback up with the capture first: what was
// written to the speaker is placed on the capture's sample clock, so the reference is what was played, when.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { ASSETS, readAsset } from 'svc-formats/assets';
import { DriftEstimator, FineDelay, type FineDelayEstimate } from './clock-drift.js';
import { DelayEstimator } from './delay-estimator.js';
import { SUPPRESSOR_DELAY, StartupSuppressor } from './echo-suppressor.js';
import { type BlockLevels, PathChangeWatch, QUIET } from './path-change.js';

/** speex_echo.h and speex_preprocess.h request numbers */
const ECHO_SET_SAMPLING_RATE = 24;
const PP_SET_DENOISE = 0;
const PP_SET_NOISE_SUPPRESS = 18;
const PP_SET_ECHO_SUPPRESS = 20;
const PP_SET_ECHO_SUPPRESS_ACTIVE = 22;
const PP_SET_ECHO_STATE = 24;

interface SpeexExports {
  memory: WebAssembly.Memory;
  _initialize(): void;
  malloc(n: number): number;
  free(p: number): void;
  speex_echo_state_init(frame: number, filter: number): number;
  speex_echo_cancellation(st: number, rec: number, play: number, out: number): void;
  speex_echo_state_reset(st: number): void;
  speex_echo_state_destroy(st: number): void;
  speex_echo_ctl(st: number, req: number, ptr: number): number;
  speex_preprocess_state_init(frame: number, rate: number): number;
  speex_preprocess_state_destroy(st: number): void;
  speex_preprocess_ctl(st: number, req: number, ptr: number): number;
  speex_preprocess_run(st: number, x: number): number;
}

/** The built module, next to the package root (assets/speexdsp/aec.wasm) wherever this file runs from. */
export function aecWasmPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const p = join(dir, 'assets', 'speexdsp', 'aec.wasm');
    if (existsSync(p)) return p;
    dir = dirname(dir);
  }
  throw new Error('the echo canceller (assets/speexdsp/aec.wasm) is missing from this installation of svc');
}

let compiled: Promise<WebAssembly.Module> | undefined;

/**
 * WASI's fd_write, writing nothing but saying it wrote it all: libc retries a write that reports fewer bytes than it
 * was given, so a stub that returned 0 without setting the count spun for ever at speexdsp's first warning (the
 * capture path hung on a reference of full-scale noise).
 */
function swallow(memory: WebAssembly.Memory, iovs: number, count: number, written: number): number {
  const view = new DataView(memory.buffer);
  let total = 0;
  for (let i = 0; i < count; i++) total += view.getUint32(iovs + i * 8 + 4, true);
  view.setUint32(written, total, true);
  return 0;
}

/** One instance per canceller: speexdsp's states live in its memory, freed with it. */
async function instantiate(): Promise<SpeexExports> {
  // (the executable's copy in a single executable, where no file is beside it)
  compiled ??= Promise.resolve().then(() => WebAssembly.compile(readAsset(ASSETS.aec, aecWasmPath)));
  const fail = (what: string) => () => {
    throw new Error(`speexdsp called ${what}`);
  };
  let memory: WebAssembly.Memory | undefined;
  const instance = await WebAssembly.instantiate(await compiled, {
    // a standalone emscripten module names these; speexdsp never exits, and prints only a warning when it resets a
    // canceller gone wrong (a reference of full-scale noise: its energy over its sanity bound)
    wasi_snapshot_preview1: {
      proc_exit: fail('exit'),
      fd_close: () => 0,
      fd_write: (_fd: number, iovs: number, count: number, written: number) => swallow(memory!, iovs, count, written),
      fd_seek: () => 0,
    },
    env: { emscripten_notify_memory_growth: () => undefined },
  });
  const x = instance.exports as unknown as SpeexExports;
  memory = x.memory;
  x._initialize();
  return x;
}

export interface EchoCancellerOptions {
  sampleRate: number;
  /**
   * the block the canceller works on (default 40 ms, the session's frame: in bench/echo.mjs speexdsp's filter
   * converges faster on a long reverberant tail than at 20 ms, RT60 600 ms 22.9 → 25.4 dB, for 20 ms more lag)
   */
  frameMs?: number;
  /** the echo tail the adaptive filter models: device latencies + the room's delay and reverberation (default 500) */
  filterMs?: number;
  /** residual echo suppression, dB (speexdsp's default -40; while the near end talks, `echoSuppressActiveDb`, -15) */
  echoSuppressDb?: number;
  echoSuppressActiveDb?: number;
  /**
   * noise suppression, dB (default -6: mild, the server hears the room much as it is). speexdsp applies its residual
   * echo suppression with its noise suppression, in the same spectral gain, so that stage is always on.
   */
  noiseSuppressDb?: number;
}

export class EchoCanceller {
  readonly frameSamples: number;
  /** the output lags the input by one block: the preprocessor's overlap-add */
  get latencySamples(): number {
    return this.frameSamples;
  }
  private echo = 0;
  private pre = 0;
  /** the last captured block's mean square */
  private lastMicE = 0;
  /** each block of the last `process` call: the microphone, speexdsp's linear output and their product (sums) */
  readonly blocks: BlockLevels[] = [];
  /** where speexdsp's states live in the module's memory (from its first allocation to its last) */
  private heapEnd = 0;
  private readonly bufs: number;
  /** where the ctl argument (one int) lives, after the three frames of samples */
  private readonly intAt: number;

  private constructor(
    private readonly x: SpeexExports,
    private readonly o: EchoCancellerOptions,
  ) {
    this.frameSamples = Math.round((o.sampleRate * (o.frameMs ?? 40)) / 1000);
    // three frames of samples (captured, played, cleaned), then one int (4-byte aligned) for the ctl arguments
    this.intAt = Math.ceil((this.frameSamples * 6) / 4) * 4;
    this.bufs = x.malloc(this.intAt + 4);
    this.init();
  }

  /** speexdsp's two states as they are (the filter learnt, the suppressor's estimates), to go back to */
  save(into?: Uint8Array): Uint8Array {
    const heap = new Uint8Array(this.x.memory.buffer, this.bufs, this.heapEnd - this.bufs);
    const out = into?.length === heap.length ? into : new Uint8Array(heap.length);
    out.set(heap);
    return out;
  }

  /** back to a state saved by `save` (since the last reset: nothing was allocated or freed in between) */
  restore(saved: Uint8Array): void {
    new Uint8Array(this.x.memory.buffer, this.bufs, saved.length).set(saved);
  }

  /** speexdsp's two states, made and set up from the options */
  private init(): void {
    const { x, o } = this;
    const taps = Math.round((o.sampleRate * (o.filterMs ?? 500)) / 1000);
    this.echo = x.speex_echo_state_init(this.frameSamples, taps);
    this.pre = x.speex_preprocess_state_init(this.frameSamples, o.sampleRate);
    const int = (req: number, v: number, st: 'echo' | 'pre') => {
      const ptr = this.bufs + this.intAt;
      new Int32Array(x.memory.buffer, ptr, 1)[0] = v;
      if (st === 'echo') x.speex_echo_ctl(this.echo, req, ptr);
      else x.speex_preprocess_ctl(this.pre, req, ptr);
    };
    int(ECHO_SET_SAMPLING_RATE, o.sampleRate, 'echo');
    x.speex_preprocess_ctl(this.pre, PP_SET_ECHO_STATE, this.echo);
    int(PP_SET_DENOISE, 1, 'pre');
    int(PP_SET_NOISE_SUPPRESS, o.noiseSuppressDb ?? -6, 'pre');
    int(PP_SET_ECHO_SUPPRESS, o.echoSuppressDb ?? -40, 'pre');
    int(PP_SET_ECHO_SUPPRESS_ACTIVE, o.echoSuppressActiveDb ?? -15, 'pre');
    // (the allocator hands out upwards: a block taken and given back marks the end of what the states hold)
    const top = x.malloc(16);
    x.free(top);
    this.heapEnd = Math.max(this.heapEnd, top + 16);
  }

  /**
   * Forget the room: both states made anew with the same settings (the echo path moved, as when the device
   * restarted with another delay; what the filter had learnt would cancel nothing and its estimate of the residual
   * echo would be wrong).
   */
  reset(): void {
    if (!this.echo) throw new Error('the echo canceller was freed');
    this.x.speex_preprocess_state_destroy(this.pre);
    this.x.speex_echo_state_destroy(this.echo);
    this.lastMicE = 0;
    this.init();
  }

  static async create(o: EchoCancellerOptions): Promise<EchoCanceller> {
    return new EchoCanceller(await instantiate(), o);
  }

  /**
   * The captured samples without the echo of `reference` (what the speaker played over the same span), any
   * number of whole frames (frameSamples each).
   */
  process(capture: Int16Array, reference: Int16Array): Int16Array {
    if (!this.echo) throw new Error('the echo canceller was freed');
    const n = this.frameSamples;
    if (capture.length !== reference.length || capture.length % n !== 0)
      throw new Error(`echo canceller: ${capture.length} and ${reference.length} samples, not frames of ${n}`);
    const out = new Int16Array(capture.length);
    this.blocks.length = 0;
    for (let off = 0; off < capture.length; off += n) {
      // the memory may have grown: views made afresh
      const mem = new Int16Array(this.x.memory.buffer, this.bufs, n * 3);
      mem.set(capture.subarray(off, off + n), 0);
      mem.set(reference.subarray(off, off + n), n);
      const rec = this.bufs;
      const cleaned = this.bufs + n * 4;
      this.x.speex_echo_cancellation(this.echo, rec, rec + n * 2, cleaned);
      this.blocks.push(levels(capture.subarray(off, off + n), new Int16Array(this.x.memory.buffer, cleaned, n)));
      this.x.speex_preprocess_run(this.pre, cleaned);
      out.set(new Int16Array(this.x.memory.buffer, cleaned, n), off);
      // (the output block is made of this captured block and the one before: the preprocessor's overlap)
      const micE = this.blocks.at(-1)!.micE;
      neverLouder(Math.max(micE, this.lastMicE), out.subarray(off, off + n));
      this.lastMicE = micE;
    }
    return out;
  }

  free(): void {
    if (!this.echo) return;
    this.x.speex_preprocess_state_destroy(this.pre);
    this.x.speex_echo_state_destroy(this.echo);
    this.x.free(this.bufs);
    this.echo = 0;
    this.pre = 0;
  }
}

function levels(mic: Int16Array, linear: Int16Array): BlockLevels {
  let m = 0;
  let l = 0;
  let c = 0;
  for (let i = 0; i < mic.length; i++) {
    m += mic[i]! * mic[i]!;
    l += linear[i]! * linear[i]!;
    c += mic[i]! * linear[i]!;
  }
  const n = mic.length || 1;
  return { micE: m / n, linearE: l / n, crossE: c / n };
}

/**
 * A block the canceller made louder than the microphone (`micE`: the mean square of the captured samples it was
 * made from) is scaled down to it, as WebRTC AEC3 keeps the quieter of its filter's output and the microphone: the
 * filter subtracted an echo that was not there, the playback told of having sounded later or not at all (the
 * device held its last periods, or ran dry). Alone, speexdsp put its estimate out whole: talk-echo's 8 kHz case
 * under load had -26 dBFS in the output over a room at -57, over the server VAD's threshold.
 */
function neverLouder(micE: number, out: Int16Array): void {
  const outE = meanSquare(out);
  if (outE <= micE) return;
  const gain = Math.sqrt(micE / outE);
  for (let i = 0; i < out.length; i++) out[i] = Math.round(out[i]! * gain);
}

/** the fractional reader's table: windowed-sinc phases between two samples (interpolated linearly between them) */
const PHASES = 256;

/** a chunk written this soon after the one before has ended still plays right after it (the device's queue) */
const CONTIGUOUS_MS = 20;
/** the same once the reader has gone past that end: the write came just after the frame that needed it */
const OUTRUN_MS = 8;

/**
 * What the speaker played, on the capture's clock. Captured sample c was taken at `anchor + c / rate`, the anchor
 * being the earliest that fits every frame's arrival (a frame cannot arrive before its last sample was taken). A
 * chunk written to the device at time t starts sounding no earlier than t, and right after the chunk before it
 * while the device is still playing that one (or stopped less than CONTIGUOUS_MS before): so the reference never
 * comes after its echo (the canceller can only cancel what it has been shown), and the filter's length covers the
 * rest (output latency, the room, input latency). The played samples are kept on the playback's own clock, which
 * may run faster or slower than the capture's (two devices, or one card's two converters): the reference for n
 * captured samples is n·(1 + drift) played samples, read between samples (FractionalReader) once a drift is set.
 * Each run of chunks played back to back is a segment: within one, the echo's delay changes only by the drift. The
 * anchor is the earliest fit of the last 10 s, so that it follows a capture clock that drifts from the system clock.
 */
export class ReferenceTimeline {
  private anchor = Number.POSITIVE_INFINITY;
  private readonly fits: number[] = [];
  private readonly fitSamples: number[] = [];
  private fitSpan = 0;
  /** captured samples so far (the capture's clock) */
  private captured = 0;
  /** the played position of the next captured sample (fractional once a drift is set) */
  private readAt = 0;
  /** played samples before this are spent (zeroed for the ring's next turn) */
  private spent = 0;
  /** where the last chunk written ends, on the playback's clock */
  private writeEnd = 0;
  private readonly ring: Int16Array;
  /** played samples per captured sample (1 + the drift set) */
  private ratio = 1;
  private reader: FractionalReader | undefined;
  /** the last frame's read (where, by what step, how many, from which captured sample); stale: written over since */
  private lastRead: { from: number; step: number; n: number; captured: number; stale: boolean } | undefined;
  /** counts the runs of back-to-back playback (a new one after a pause or a barge-in) */
  segment = 0;

  constructor(
    private readonly rate: number,
    seconds = 60,
  ) {
    this.ring = new Int16Array(rate * seconds);
  }

  /** where the played clock is ahead of the captured one, in samples, at the next captured sample */
  get offset(): number {
    return this.readAt - this.captured;
  }

  /** The playback runs `ppm` parts per million faster than the capture: the reference read by it from now on. */
  setDrift(ppm: number): void {
    this.ratio = 1 + ppm / 1e6;
    this.reader ??= new FractionalReader();
  }

  /** a capture time (performance.now()) on the playback's clock */
  private playedClock(atMs: number): number {
    return this.readAt + (((atMs - this.anchor) * this.rate) / 1000 - this.captured) * this.ratio;
  }

  /** `pcm` was written to the device at `atMs` (performance.now()). */
  played(pcm: Int16Array, atMs = performance.now()): void {
    if (!Number.isFinite(this.anchor)) return; // nothing captured yet: no echo to cancel
    const came = Math.round(this.playedClock(atMs));
    const now = Math.ceil(this.readAt);
    let start = this.writeEnd;
    // a write that comes within CONTIGUOUS_MS of where the last one ended plays right after it. When the reader has
    // gone past that end, only within OUTRUN_MS: the playback written just in time, its clock slower (the frame
    // read before the write came had silence for its last samples, read again below); moved to where the reader
    // is, it shifted the reference by that much (~5 ms at −208 ppm after 11 s in bench/echo.mjs) and the canceller
    // started again. Later than that the device ran dry and plays it when it came.
    const tolerance = this.writeEnd < now ? OUTRUN_MS : CONTIGUOUS_MS;
    if (came > this.writeEnd + (this.rate * tolerance) / 1000) {
      start = Math.max(came, now);
      this.segment++;
    }
    const room = this.spent + this.ring.length - start;
    const n = Math.min(pcm.length, room);
    // (what lies before the spent mark was read already: not written, so the ring stays zero ahead of the reader)
    for (let i = Math.max(0, this.spent - start); i < n; i++) this.ring[(start + i) % this.ring.length] = pcm[i]!;
    const r = this.lastRead;
    if (r && start < r.from + r.n * r.step + FractionalReader.HALF && start + n > r.from) r.stale = true;
    this.writeEnd = start + n;
  }

  /** Playback stopped at `atMs` (barge-in): what was queued after that is not played. */
  cleared(atMs = performance.now()): void {
    if (!Number.isFinite(this.anchor)) return;
    const at = Math.max(Math.ceil(this.readAt), Math.round(this.playedClock(atMs)));
    for (let i = at; i < this.writeEnd; i++) this.ring[i % this.ring.length] = 0;
    this.writeEnd = Math.min(this.writeEnd, at);
    this.segment++;
  }

  /** The reference for the next `n` captured samples, which arrived at `atMs`. */
  next(n: number, atMs = performance.now()): Int16Array {
    // the earliest fit over the last 10 s: it follows a capture clock slower than this one (drift), which a
    // fit over the whole session would not, and the reference would end up after its echo
    this.fits.push(atMs - ((this.captured + n) * 1000) / this.rate);
    this.fitSamples.push(n);
    this.fitSpan += n;
    while (this.fitSpan - this.fitSamples[0]! >= this.rate * 10) {
      this.fitSpan -= this.fitSamples.shift()!;
      this.fits.shift();
    }
    this.anchor = Math.min(...this.fits);
    const out = this.read(this.readAt, this.ratio, n);
    this.lastRead = { from: this.readAt, step: this.ratio, n, captured: this.captured, stale: false };
    this.readAt += n * this.ratio;
    // what the reader may still look back at is kept, and the last frame's span (read again if a write lands on it)
    const done = Math.floor(this.lastRead.from) - FractionalReader.HALF;
    for (; this.spent < done; this.spent++) this.ring[this.spent % this.ring.length] = 0;
    this.captured += n;
    return out;
  }

  private read(from: number, step: number, n: number): Int16Array {
    const out = new Int16Array(n);
    if (this.reader) this.reader.read(this.ring, from, step, out);
    else for (let i = 0; i < n; i++) out[i] = this.ring[(from + i) % this.ring.length]!;
    return out;
  }

  /**
   * The last frame's reference read again, when a write came after it and landed on what it read (the playback
   * written just in time: that frame had silence where this write's first samples play): the captured sample it
   * starts at and the samples. Once per such write; undefined otherwise.
   */
  reread(): { captured: number; samples: Int16Array } | undefined {
    const r = this.lastRead;
    if (!r?.stale) return undefined;
    r.stale = false;
    return { captured: r.captured, samples: this.read(r.from, r.step, r.n) };
  }
}

/**
 * Samples of a ring read at fractional positions: a windowed sinc (32 taps, Hann) from a table of 256 phases,
 * interpolated between phases; flat to ~10 kHz at 24 kHz. It looks HALF samples ahead of the position read, which
 * the playback has been written well before (the device's own buffer is longer).
 */
export class FractionalReader {
  static readonly HALF = 16;
  private static table: Float32Array | undefined;

  constructor() {
    FractionalReader.table ??= FractionalReader.build();
  }

  /** taps for phases 0..PHASES (the last one repeats the first, shifted: no wrap at interpolation) */
  private static build(): Float32Array {
    const { HALF } = FractionalReader;
    const taps = HALF * 2;
    const t = new Float32Array((PHASES + 1) * taps);
    for (let p = 0; p <= PHASES; p++) {
      for (let k = 0; k < taps; k++) {
        const x = k - (HALF - 1) - p / PHASES;
        const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
        t[p * taps + k] = sinc * (0.5 + 0.5 * Math.cos((Math.PI * x) / HALF));
      }
    }
    return t;
  }

  /** out[i] = the ring at from + i·step */
  read(ring: Int16Array, from: number, step: number, out: Int16Array): void {
    const { HALF } = FractionalReader;
    const table = FractionalReader.table!;
    const taps = HALF * 2;
    const len = ring.length;
    for (let i = 0; i < out.length; i++) {
      const pos = from + i * step;
      const base = Math.floor(pos);
      const ph = (pos - base) * PHASES;
      const p = Math.floor(ph);
      const f = ph - p;
      const a = p * taps;
      const b = a + taps;
      let v = 0;
      for (let k = 0; k < taps; k++) {
        const idx = base - (HALF - 1) + k;
        const x = idx < 0 ? 0 : ring[idx % len]!;
        v += x * (table[a + k]! + f * (table[b + k]! - table[a + k]!));
      }
      out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : Math.round(v);
    }
  }
}

/**
 * Until the adaptive filter has learnt the room, speexdsp lets most of the echo through (its residual echo estimate
 * comes from the filter itself): over the first second of the agent's voice a server VAD would hear it. So, as in
 * WebRTC AEC3's initial state, the output is held down while the echo of the playback may be in the microphone,
 * until the ERLE measured over 0.5 s of such audio reaches 15 dB; then the canceller alone does the work. After a
 * pause in the playback the device restarts, a little earlier or later than before (its period, the scheduler),
 * and the filter must follow the shift: each new burst is held down again until 0.1 s of it measures 15 dB.
 * The cost: the user's voice is not heard over the agent's first seconds, nor over the first ~0.1-0.3 s of each
 * later answer (bench/echo.mjs measures both).
 */
export class StartupGuard {
  learning = true;
  /** the room was learnt once: later holds are short */
  private learnt = false;
  private readonly recent: number[] = [];
  private micE = 0;
  private outE = 0;
  private span = 0;
  private refE = 0;
  private readonly gain: number;
  /**
   * the echo's level against the playback's (mean squares), measured over the window that ended the first learning:
   * once known, a frame louder than any echo could be is the near end talking, and is never held down
   */
  private echoGain: number | undefined;
  /** samples held down so far */
  heldSamples = 0;
  /** once learnt, how much live echo must measure 15 dB to end a hold (a burst after a pause: 0.1 s) */
  private confirmSamples: number;
  /** the hold ended once (a restart does not make the next take-over the first) */
  private heardOnce = false;
  /** the canceller in use has ended a hold (measured 15 dB on live echo) since it took over */
  private confirmed = false;

  constructor(
    private readonly rate: number,
    /** how long an echo lasts after its sound: the filter's length */
    private readonly tailSamples: number,
    suppressDb = -30,
  ) {
    this.gain = 10 ** (suppressDb / 20);
    this.confirmSamples = rate / 10;
  }

  /**
   * A canceller that measured 15 dB over the last second of the playback took over: the room is learnt, the echo's
   * level against the playback's (`micE` and `refE`, mean squares) known. Held down only until live echo measures
   * 15 dB: its 15 dB were on audio it had learnt from three times (let through at once, its echo made the agent
   * interrupt itself in 1 of 2 runs of the 3-turn test). The first time (the start-up), over `firstConfirmMs`:
   * EchoPath gives two 40 ms blocks. In bench/echo.mjs over 0.1 s (three blocks) the holds ended 1.0-1.08 s after
   * the first echo, 2.1 s at ±208 ppm (the drift not yet corrected, three blocks in a row fell short); over two
   * 1.0-1.04 s (±208 ppm 1.01), the same ERLE, no false barge-in; over one 0.94-1.0 s, but the guard's state then
   * changed a later delay's trial (EchoPath.realign's `stale`) and the echo after the 250 -> 40 ms jump leaked (its
   * 2 s with the hold on 30.0 -> 10.7 dB). Later trials (a new delay) and bursts after a pause: 0.1 s. "The first
   * time" is until the hold first ended (several trials may take over before), or as `first` says (the commit of
   * the delay an early trial took). An infinite `firstConfirmMs`: held until EchoPath confirms (`release`) or gives
   * up (`restart`).
   */
  learntFrom(micE: number, refE: number, firstConfirmMs = 100, first = !this.heardOnce): void {
    this.confirmSamples = (this.rate * (first ? firstConfirmMs : 100)) / 1000;
    this.learning = true;
    this.learnt = true;
    this.confirmed = false;
    this.micE = this.outE = this.span = this.refE = 0;
    if (refE > 0) this.echoGain = micE / refE;
  }

  /** Live echo measured 15 dB through a canceller just taken over (EchoPath's early trials): the hold ends now. */
  release(): void {
    this.learning = false;
    this.learnt = true;
    this.heardOnce = true;
    this.confirmed = true;
    this.micE = this.outE = this.span = this.refE = 0;
  }

  /** The canceller was reset: as at the start, held down until 0.5 s of echo measures 15 dB. */
  restart(): void {
    this.learning = true;
    this.learnt = false;
    this.confirmed = false;
    this.micE = this.outE = this.span = this.refE = 0;
  }

  /** A block of echo (mean squares) added to the measure; the hold ends once the window measures 15 dB. */
  private measure(micE: number, outE: number, refE: number, n: number): void {
    this.micE += micE;
    this.outE += outE;
    this.refE += refE;
    this.span += n;
    if (this.span < (this.learnt ? this.confirmSamples : this.rate / 2)) return;
    if (this.micE >= this.outE * 10 ** 1.5) {
      this.learning = false;
      this.heardOnce = true;
      this.confirmed = true;
      if (this.refE > 0) this.echoGain = this.micE / this.refE;
    }
    this.learnt ||= !this.learning;
    this.micE = this.outE = this.span = this.refE = 0;
  }

  /** the microphone louder by 6 dB than the loudest playback over the echo's span could make it: the near end */
  private nearEnd(mic: Int16Array): boolean {
    if (this.echoGain === undefined) return false;
    return meanSquare(mic) > 4 * this.echoGain * Math.max(...this.recent);
  }

  /**
   * No delay committed yet (EchoPath sets it each frame): a hold that ended comes back on a block of echo left within
   * 10 dB. Such a canceller can pass its 0.1 s and then leak: in talk-echo-long.test.ts's room (the echo ~0.6 s late,
   * its delay moving with each write) it measured 23-30 dB over a block or two, was let through, and the next block
   * came out at -31 dBFS, 9 dB under the microphone, loud enough for the server's VAD: the agent heard itself.
   */
  probation = false;

  /**
   * on probation, a block of echo-level sound came out within 10 dB of it (`micE`, the microphone's mean square):
   * held from this one, unless it is the near end
   */
  private leaked(micE: number, out: Int16Array): boolean {
    if (!this.probation || micE < QUIET) return false;
    // its louder half: the server's VAD looks at 20 ms
    const half = out.length >> 1;
    return Math.max(meanSquare(out.subarray(0, half)), meanSquare(out.subarray(half))) * 10 >= micE;
  }

  /** the hold has ended once (the start-up is over) */
  get heard(): boolean {
    return this.heardOnce;
  }

  /**
   * `out` (the cleaned `mic`, `ref` what played meanwhile) held down while learning and echo may be there; with
   * `hold` false (the start-up suppressor at work) only measured
   */
  apply(mic: Int16Array, ref: Int16Array, out: Int16Array, hold = true): void {
    this.recent.push(meanSquare(ref));
    while (this.recent.length * mic.length > this.tailSamples + mic.length) this.recent.shift();
    // the playback is silence and its echo below any VAD
    if (Math.max(...this.recent) < QUIET) {
      // the playback and its echo are over: the next burst is checked again, over 0.1 s once the canceller in use
      // has ended a hold; one that has not keeps the confirmation it was given (an early trial's is EchoPath's: a
      // burst's 0.1 s ended the hold on such a trial whose filter barely reached the echo, and it leaked)
      if (this.learnt) this.learning = true;
      if (this.confirmed) this.confirmSamples = this.rate / 10;
      this.micE = this.outE = this.span = this.refE = 0;
      return;
    }
    const micE = meanSquare(mic);
    const leak = !this.learning && this.leaked(micE, out);
    if (!this.learning && !leak) return;
    // once the room was learnt, the near end talking over a new burst is let through, and left out of the measure
    // (its voice in the output is no echo left uncancelled)
    if (this.nearEnd(mic)) return;
    if (leak) {
      this.learning = true;
      this.confirmSamples = this.rate / 10;
      this.micE = this.outE = this.span = this.refE = 0;
    }
    // only blocks that hear an echo-level sound are measured: with a long output latency a burst's first blocks are
    // the room's noise, and a 0.1 s of them measured the one block of echo it held (15 dB; 4 dB on the next blocks:
    // the agent heard itself in talk-echo-long.test.ts, whose room's echo comes ~0.6 s after the playback)
    if (micE >= QUIET) this.measure(micE, meanSquare(out), meanSquare(ref), mic.length);
    if (!hold) return;
    this.heldSamples += out.length;
    for (let i = 0; i < out.length; i++) out[i] = Math.round(out[i]! * this.gain);
  }
}

function meanSquare(x: Int16Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i]! * x[i]!;
  return x.length ? s / x.length : 0;
}

export interface EchoPathOptions extends EchoCancellerOptions {
  /** the output held down by this much until the canceller has converged (default -30 dB); 0: not at all */
  startupSuppressDb?: number;
  /**
   * at the start, once a trained canceller learnt the room, the echo predicted from the reference is suppressed
   * instead of the output held down (StartupSuppressor; default true; false: the hold alone, as before it)
   */
  startupSuppressor?: boolean;
  /** find the bulk delay and move the reference by it before the canceller (default true) */
  alignDelay?: boolean;
  /** estimate the clock drift between the speaker and the microphone and resample the reference (default true) */
  correctDrift?: boolean;
  /** the output held down by this much while an echo path changed under the converged canceller (default -30 dB) */
  pathChangeSuppressDb?: number;
}

/** the reference is moved this much less than the delay found: the echo's direct path must stay after it */
export const DELAY_MARGIN_MS = 10;
/** a drift estimate less sure than this is not applied (ppm; 15 ppm uncorrected is 0.15 ms of shift in 10 s) */
const MAX_DRIFT_ERROR_PPM = 15;
/** the fine delay's block, taken every FINE_HOP_MS, FINE_WINDOW_MS either side of the bulk delay */
const FINE_BLOCK_MS = 340;
const FINE_HOP_MS = 250;
const FINE_WINDOW_MS = 10;
/** a fine estimate counts when its peak is this many times the RMS of the correlation at the other lags */
const FINE_CONFIDENCE = 8;
/** the drift's fit from fine estimates spread this much (Σ (t − t̄)², s²: ~2 s of them) */
const FINE_SPREAD = 2;
/** fine estimates further apart than this (and the largest drift's move) are not one line (ms) */
const FINE_JUMP_MS = 0.2;
/** no two devices' clocks are this far apart (48,048 against 48,000 Hz): a larger "drift" is something else */
const MAX_DRIFT_PPM = 1000;
/** the whole range of delays (twice the window) over up to a block of microphone, at the full rate */
const WIDE_BLOCK_MS = 340;
const WIDE_WINDOW_MS = 260;
const WIDE_CONFIDENCE = 8;
/** after a change, the strongest peaks tried (each on the audio since, TRIAL_BLOCKS at most), down to this one */
const CANDIDATES = 3;
const CANDIDATE_CONFIDENCE = 5;
/**
 * the echo's delay measured this often while the canceller is settled (what a change is measured from), where the
 * drift's track does not measure it (4 ms of CPU each)
 */
const ANCHOR_HOP_S = 1;
/** after a change, the new delay looked for once this much was captured since */
const SEARCH_AFTER_S = 0.16;
/** a new delay is tried over at most this many blocks since the change */
const TRIAL_BLOCKS = 6;
/** the canceller's states kept, one per block: the oldest is from before a change seen a block late */
const SAVED = 3;
/** at a new delay, the canceller learns again from the start of the playback, at most this far back */
const RELEARN_S = 3;
/** how many times the spare canceller goes over that audio (speexdsp converges on reused data) */
const TRAIN_PASSES = 3;
/** the passes of a trial while none has been confirmed: the first trials' audio is short (~0.5-1 s) */
const EARLY_PASSES = 6;
/** early trials at most (each ≤ 1.5 s of audio × EARLY_PASSES of speexdsp's work: ~0.1 s of CPU) */
const EARLY_TRIALS = 4;
/** the live blocks of echo that confirm a take-over at 15 dB (an early one's: EchoPath; else the hold's measure) */
const CONFIRM_BLOCKS = 2;
/** the start-up suppressor works this long at most (s) */
const SUPPRESS_MAX_S = 2;
/** a playback that starts after this much quiet is a new burst (a new answer, a sentence after a pause) */
const BURST_GAP_S = 0.2;

/**
 * The last seconds of the microphone and of the playback (on the capture's clock), by absolute sample number: the
 * reference is read from it at any delay, and the canceller relearns from it when the delay changes.
 */
export class EchoHistory {
  private readonly mic: Int16Array;
  private readonly played: Int16Array;
  /** the canceller's output, at the positions of the microphone's samples it was made from */
  private readonly cleaned: Int16Array;
  /** samples so far */
  total = 0;
  /** where the latest burst of playback began */
  burstStart = 0;
  private quiet = 0;

  constructor(
    private readonly rate: number,
    seconds: number,
  ) {
    this.mic = new Int16Array(Math.round(rate * seconds));
    this.played = new Int16Array(this.mic.length);
    this.cleaned = new Int16Array(this.mic.length);
  }

  /** the oldest sample still held */
  get oldest(): number {
    return Math.max(0, this.total - this.mic.length);
  }

  push(mic: Int16Array, played: Int16Array): void {
    const size = this.mic.length;
    for (let i = 0; i < mic.length; i++) {
      this.mic[(this.total + i) % size] = mic[i]!;
      this.played[(this.total + i) % size] = played[i]!;
    }
    if (meanSquare(played) < QUIET) this.quiet += played.length;
    else {
      if (this.quiet >= this.rate * BURST_GAP_S) this.burstStart = this.total;
      this.quiet = 0;
    }
    this.total += mic.length;
  }

  /**
   * The playback `delay` samples before [from, from + n) as it would have been read by `step` played samples per
   * captured one (a drift found since), ending where the read at one per one ends: between samples.
   */
  playedStretched(from: number, n: number, delay: number, step: number): Int16Array {
    const out = new Int16Array(n);
    new FractionalReader().read(this.played, from + n - delay - n * step, step, out);
    return out;
  }

  /** the playback's samples from `from` on (those already captured) read again */
  mendPlayed(from: number, played: Int16Array): void {
    for (let i = Math.max(0, this.oldest - from); i < played.length; i++)
      this.played[(from + i) % this.played.length] = played[i]!;
  }

  /** the canceller's output for the microphone's samples from `from` on (those already captured) */
  setCleaned(from: number, out: Int16Array): void {
    for (let i = 0; i < out.length; i++) this.cleaned[(from + i) % this.cleaned.length] = out[i]!;
  }

  cleanedAt(from: number, n: number): Int16Array {
    return this.read(this.cleaned, from, n);
  }

  /** the microphone's samples [from, from + n) */
  micAt(from: number, n: number): Int16Array {
    return this.read(this.mic, from, n);
  }

  /** the playback `delay` samples before [from, from + n): silence where it is not held */
  playedAt(from: number, n: number, delay: number): Int16Array {
    return this.read(this.played, from - delay, n);
  }

  private read(ring: Int16Array, from: number, n: number): Int16Array {
    const out = new Int16Array(n);
    for (let i = Math.max(0, this.oldest - from); i < n; i++) out[i] = ring[(from + i) % ring.length]!;
    return out;
  }
}

/**
 * The canceller on the capture path: captured frames in, cleaned frames out; the playback told as it is written.
 * A DelayEstimator measures how long after the reference its echo comes (the device's output latency, the room's
 * direct path); once it commits a delay, the reference is read that much later, less DELAY_MARGIN_MS, so that the
 * canceller's filter spends its length on the echo rather than on the silence before it. A new delay (or none,
 * when the estimates stop confirming the one in use) is tried on a spare canceller run over the audio since the
 * playback began (kept in an EchoHistory) and taken only if that canceller does better; then the start-up hold
 * begins again. No delay found (headphones, silence, noise): the reference is used as it is, as without the estimator.
 */
export class EchoPath {
  private readonly timeline: ReferenceTimeline;
  private carry = new Int16Array(0);
  private refCarry: Int16Array = new Int16Array(0);
  /** cleaned samples ahead of what was handed out */
  private pending = new Int16Array(0);
  private readonly guard: StartupGuard | undefined;
  /** what holds the echo down at the start once the room was learnt, instead of the guard (which still measures) */
  private readonly suppressor: StartupSuppressor | undefined;
  private suppressingNow = false;
  /**
   * the reference's shift at which a trained canceller measured 15 dB on what it learnt from (the echo's delay, less
   * the margin): what the suppressor lines the reference up by; undefined until then, or after a take-over that did
   * not learn the room
   */
  private learntShift: number | undefined;
  /** where the first burst of playback began: the suppressor works in that one only (the start-up) */
  private firstBurst: number | undefined;
  private readonly estimator: DelayEstimator | undefined;
  private readonly history: EchoHistory;
  /** the reference is the playback this many samples earlier */
  private shift = 0;
  private readonly rate: number;

  private readonly drift: DriftEstimator | undefined;
  /** the echo's delay at the full rate, block by block: the drift's track */
  private readonly fine: FineDelay | undefined;
  /** the microphone's sample count at which the next fine block ends */
  private fineNext = 0;
  /** the timeline's offset (ms) at each frame's first sample and after its last, by the frame's first sample */
  private readonly offsets: [number, number, number][] = [];
  /** where the timeline's segment last changed (microphone samples), and the segment then */
  private segmentAt = 0;
  private segmentSeen = 0;
  /** the drift the reference is resampled by (ppm), undefined until one is measured */
  private driftApplied: number | undefined;
  /** a canceller was trained again over the past at the drift applied */
  private retrained = false;
  /** watches the linear filter, once converged, for an echo path that moved under it */
  private readonly watch: PathChangeWatch | undefined;
  /** every delay looked for at the full rate: the echo's before a change and after it */
  private readonly wide: FineDelay | undefined;
  /** the canceller's states saved block by block while it is settled; the oldest is restored at a change */
  private readonly saved: Uint8Array[] = [];
  /** the echo's delay (ms) as `wide` last measured it while the canceller was settled, and when to again */
  private anchorMs: number | undefined;
  private anchorNext = 0;
  /** where an unresolved change was first seen (microphone samples) */
  private changeAt: number | undefined;
  /** no trained canceller has been confirmed on live echo yet: each confident estimate is tried at once (`tryEarly`) */
  private early = true;
  /** where the live audio after a take-over that learnt the room starts (microphone samples), until confirmed */
  private confirmFrom: number | undefined;
  /** the blocks of live echo since confirmFrom began: the microphone's and the output's mean squares */
  private readonly confirmHeard: [number, number][] = [];
  private earlyTrials = 0;

  private constructor(
    private canceller: EchoCanceller,
    /** the canceller tried at a new delay (made only where delays are looked for) */
    private spare: EchoCanceller | undefined,
    o: EchoPathOptions,
  ) {
    this.rate = o.sampleRate;
    this.timeline = new ReferenceTimeline(o.sampleRate);
    // the drift is read from the delay track: without the estimator there is none
    if (o.alignDelay !== false && o.correctDrift !== false) {
      // independent estimates: none skipped, no shared blocks; the fit from ~2 s of them. Precise to a few µs, a
      // step of 0.2 ms (and 1000 ppm of drift) between two is the playback's timing moved (an underrun the timeline
      // did not see), a line of its own: within one line ~2 s of estimates read such a step as drift
      this.drift = new DriftEstimator({
        skipFirst: 0,
        shared: 1,
        minSpread: FINE_SPREAD,
        jumpMs: FINE_JUMP_MS,
        jumpPerS: MAX_DRIFT_PPM / 1000,
      });
      this.fine = new FineDelay(
        o.sampleRate,
        Math.round((o.sampleRate * FINE_BLOCK_MS) / 1000),
        Math.round((o.sampleRate * FINE_WINDOW_MS) / 1000),
      );
    }
    if (o.startupSuppressDb !== 0) {
      const tail = Math.round((o.sampleRate * (o.filterMs ?? 500)) / 1000);
      this.guard = new StartupGuard(o.sampleRate, tail, o.startupSuppressDb);
    }
    if (o.alignDelay !== false) {
      this.estimator = new DelayEstimator({ sampleRate: o.sampleRate });
      const tail = Math.round((o.sampleRate * (o.filterMs ?? 500)) / 1000);
      this.watch = new PathChangeWatch(o.sampleRate, tail, o.pathChangeSuppressDb);
      const ms = (v: number) => Math.round((o.sampleRate * v) / 1000);
      this.wide = new FineDelay(o.sampleRate, ms(WIDE_BLOCK_MS), ms(WIDE_WINDOW_MS));
      if (this.guard && o.startupSuppressor !== false)
        this.suppressor = new StartupSuppressor(o.sampleRate, canceller.frameSamples);
    }
    this.history = new EchoHistory(o.sampleRate, RELEARN_S + 1);
  }

  static async open(o: EchoPathOptions): Promise<EchoPath> {
    const spare = o.alignDelay === false ? undefined : await EchoCanceller.create(o);
    return new EchoPath(await EchoCanceller.create(o), spare, o);
  }

  /** Still learning the room (the output held down, or suppressed, while the playback's echo may be heard)? */
  get learning(): boolean {
    return this.guard?.learning ?? false;
  }

  /** the output held down (the start-up hold before the room is learnt, a burst after a pause, a restart) */
  get holding(): boolean {
    return this.learning && !this.suppressingNow;
  }

  /** the start-up suppressor at work on the output (StartupSuppressor) */
  get suppressing(): boolean {
    return this.suppressingNow;
  }

  /** how long the start-up suppressor has worked so far (ms) */
  get suppressedMs(): number {
    return ((this.suppressor?.suppressedSamples ?? 0) * 1000) / this.rate;
  }

  /** an echo path changed under the converged canceller and is not resolved yet (the output held down) */
  get changing(): boolean {
    return this.watch?.suppressing ?? false;
  }

  /** how long the start-up hold has held the output down so far (ms) */
  get heldMs(): number {
    return ((this.guard?.heldSamples ?? 0) * 1000) / this.rate;
  }

  /** how far the cleaned audio lags the captured (samples) */
  get latencySamples(): number {
    return this.canceller.latencySamples + (this.suppressor ? SUPPRESSOR_DELAY : 0);
  }

  /** how far the cleaned frame handed out last lags the captured one (ms): speexdsp's block, a part block waiting */
  get lagMs(): number {
    return ((this.latencySamples + this.carry.length + this.pending.length) * 1000) / this.rate;
  }

  /** the bulk delay found between the playback and its echo (ms), undefined while none is */
  get echoDelayMs(): number | undefined {
    return this.estimator?.delayMs;
  }

  /** the clock drift measured between the speaker and the microphone (ppm, + the speaker faster), once known */
  get driftPpm(): number | undefined {
    return this.driftApplied;
  }

  /** PCM s16le written to the speaker now. */
  played(pcm: Buffer, atMs = performance.now()): void {
    this.timeline.played(samples(pcm), atMs);
    // the last frame read silence where this write plays: its reference mended before the canceller reads it
    // (at the bulk delay, a frame or more later)
    const again = this.timeline.reread();
    if (again) this.history.mendPlayed(again.captured, again.samples);
  }

  /** The speaker was stopped (barge-in). */
  cleared(atMs = performance.now()): void {
    this.timeline.cleared(atMs);
  }

  /**
   * A captured frame (PCM s16le mono), cleaned. Samples short of a whole canceller frame wait for the next one (the
   * output is as long as the input, one short block later).
   */
  captured(frame: Buffer, atMs = performance.now()): Buffer {
    const pcm = samples(frame);
    const at = this.history.total;
    const offsetBefore = this.timeline.offset;
    const played = this.timeline.next(pcm.length, atMs);
    this.history.push(pcm, played);
    if (this.firstBurst === undefined && meanSquare(played) >= QUIET) this.firstBurst = this.history.burstStart;
    if (this.drift) this.noteOffset(at, offsetBefore, pcm.length);
    const last = this.estimator?.last;
    if (this.estimator?.push(played, pcm)) this.realign(this.estimator.delaySamples ?? 0, at);
    else if (this.estimator?.last !== last) this.tryEarly(at);
    this.trackDrift(at);
    const ref = this.shift ? this.history.playedAt(at, pcm.length, this.shift) : played;
    const all = this.carry.length ? concat(this.carry, pcm) : pcm;
    const whole = all.length - (all.length % this.canceller.frameSamples);
    const refAll = this.refCarry.length ? concat(this.refCarry, ref) : ref;
    const cleaned = this.canceller.process(all.subarray(0, whole), refAll.subarray(0, whole));
    this.history.setCleaned(at - this.carry.length, cleaned);
    this.watchPath(at - this.carry.length, refAll.subarray(0, whole));
    this.carry = all.slice(whole);
    this.refCarry = refAll.slice(whole);
    this.followChange();
    let out = concat(this.pending, cleaned);
    // a frame that is not whole blocks: the output falls behind by the shortfall once (silence), then keeps pace
    if (out.length < pcm.length) out = concat(new Int16Array(pcm.length - out.length), out);
    this.pending = out.slice(pcm.length);
    const head = out.subarray(0, pcm.length);
    // the hold watches the playback itself over the filter's length, as without a delay: an echo come sooner than
    // the delay found (the device restarted with less latency) is held down too, and the hold ends no later
    this.confirmEarly();
    // the start-up, once a trained canceller learnt the room: the suppressor instead of the hold (the guard still
    // measures, on the output before it)
    const on = this.suppressorOn();
    this.suppressingNow = on;
    if (this.guard) this.guard.probation = this.estimator !== undefined && this.estimator.delaySamples === undefined;
    this.guard?.apply(pcm, played, head, !on);
    if (this.suppressor) {
      // the input `head` was made from: it lags by the canceller's block and what waits (less the filter's delay)
      const from =
        this.history.total - head.length - this.canceller.latencySamples - this.carry.length - this.pending.length;
      const input = on
        ? { mic: this.history.micAt(from, head.length), ref: this.history.playedAt(from, head.length, this.shift) }
        : undefined;
      this.suppressor.apply(head, input);
    }
    this.watch?.apply(pcm, head);
    return Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  }

  /**
   * Each block the canceller just cleaned (from microphone sample `from`, `ref` the reference it was given) goes to
   * the watch; while it is settled the canceller's states are saved (the last SAVED blocks), and the echo's delay is
   * measured every ANCHOR_HOP_S over the whole range (or taken from the drift's track): what a change is measured
   * from.
   */
  private watchPath(from: number, ref: Int16Array): void {
    const { watch, history } = this;
    if (!watch) return;
    const n = this.canceller.frameSamples;
    this.canceller.blocks.forEach((l, k) => {
      const raw = meanSquare(history.playedAt(from + k * n, n, 0));
      const event = watch.block(l, raw, meanSquare(ref.subarray(k * n, (k + 1) * n)), n);
      if (event === 'alarm') this.changeAt = from + k * n;
      else if (event) this.changeAt = undefined;
      if (event === 'given up') this.anchorMs = undefined;
    });
    if (!watch.settled || watch.suppressing) {
      if (!watch.settled) this.saved.length = 0;
      return;
    }
    if (this.canceller.blocks.length) {
      const into = this.saved.length >= SAVED ? this.saved.shift() : undefined;
      this.saved.push(this.canceller.save(into));
    }
    // (with the drift's track, its fine estimates are the anchor: no measure of its own)
    if (this.fine || history.total < this.anchorNext) return;
    this.anchorNext = history.total + this.rate * ANCHOR_HOP_S;
    const [e] = this.wideDelays(history.total - this.wide!.block, 1, WIDE_CONFIDENCE);
    if (e) this.anchorMs = e.delayMs;
  }

  /**
   * The echo's delay over the microphone from `from` (at most WIDE_BLOCK_MS of it, to the newest sample) against
   * every lag of the playback up to 2·WIDE_WINDOW_MS, at the full rate: the `count` strongest peaks that stand out
   * by `confidence` (not at either end of the lags: the flank of a peak outside), strongest first.
   */
  private wideDelays(from: number, count: number, confidence: number): FineDelayEstimate[] {
    const { wide, history } = this;
    const m = Math.min(history.total - from, wide!.block);
    const start = history.total - m;
    const span = 2 * wide!.window;
    if (meanSquare(history.playedAt(start, m, 0)) < QUIET) return [];
    const mic = new Int16Array(wide!.block);
    mic.set(history.micAt(start, m));
    const ref = history.playedAt(start, wide!.block + span, span);
    ref.fill(0, span + m);
    const edge = (ms: number) => ms < 2 || ms > (span * 1000) / this.rate - 2;
    const found = wide!.peaks(mic, ref, wide!.window, count);
    return found.filter((e) => e.confidence >= confidence && !edge(e.delayMs));
  }

  /**
   * The canceller as it was before the change, run again over what was captured since (the last TRIAL_BLOCKS at
   * most) with the reference moved to `shift`: kept, having learnt on from there, if its linear filter took 10 dB
   * off that echo; else the canceller as it was (a peak of the search that was not the echo: a voice's pitch).
   */
  private tryShift(shift: number, changeAt: number): boolean {
    if (!this.saved.length) return false;
    const n = this.canceller.frameSamples;
    const done = this.history.total - this.carry.length;
    const blocks = Math.min(TRIAL_BLOCKS, Math.floor((done - changeAt) / n));
    if (blocks < 1) return false;
    const from = done - blocks * n;
    const now = this.canceller.save();
    this.canceller.restore(this.saved[0]!);
    this.canceller.process(this.history.micAt(from, blocks * n), this.history.playedAt(from, blocks * n, shift));
    let micE = 0;
    let linearE = 0;
    // (measured over the newer half: the first blocks after a change may hold the device's silence while its queue
    // grew, where the moved reference predicts an echo not yet there)
    for (const l of this.canceller.blocks.slice(blocks >> 1)) {
      micE += l.micE;
      linearE += l.linearE;
    }
    if (micE >= 10 * linearE) return true;
    this.canceller.restore(now);
    return false;
  }

  /**
   * While a change is unresolved, the echo's delay is looked for over what was captured since (from
   * SEARCH_AFTER_S of it on); found, the reference moves by its difference from the delay before, and the
   * canceller's states go back to before the change: the room did not change, only the device's latency, so the
   * filter learnt still fits once the reference is moved (a canceller trained anew needed seconds).
   */
  private followChange(): void {
    const { history } = this;
    const at = this.changeAt;
    if (at === undefined || this.anchorMs === undefined) return;
    if (history.total - at < this.rate * SEARCH_AFTER_S) return;
    const found = this.wideDelays(at, CANDIDATES, CANDIDATE_CONFIDENCE);
    const anchor = this.anchorMs;
    // the same delay: not a change (speexdsp's filter went astray for a block); the output let through
    if (found[0] && found[0].confidence >= WIDE_CONFIDENCE && Math.abs(found[0].delayMs - anchor) < 1) {
      this.changeAt = undefined;
      this.watch?.lift();
      return;
    }
    const e = found.find((c) => {
      const shift = this.shift + Math.round(((c.delayMs - anchor) * this.rate) / 1000);
      return Math.abs(c.delayMs - anchor) >= 1 && shift >= 0 && this.tryShift(shift, at);
    });
    if (!e) return;
    const move = Math.round(((e.delayMs - anchor) * this.rate) / 1000);
    this.changeAt = undefined;
    this.saved.length = 0;
    this.shift += move;
    this.refCarry = history.playedAt(history.total - this.carry.length, this.carry.length, this.shift);
    this.anchorMs = e.delayMs;
    const d = this.estimator?.delaySamples;
    if (d !== undefined) this.estimator!.moved(Math.max(0, d + move));
  }

  /**
   * The estimator committed a delay (or dropped one: 0), before the frame captured from `at` is cleaned. The spare
   * canceller is made anew and run over what was captured since the playback began, the reference read at the new
   * delay less the margin; it takes over only if, over the last second of that, it left less echo than the
   * canceller in use did (by 1 dB): a delay found on a device that was still starting, or on a periodic sound,
   * is tried and refused rather than trusted. Speexdsp's filter started anew in the middle of speech converged to
   * 8 dB less in bench/echo.mjs than one run from the start of the playback, hence the run over the past. With
   * `stretch` (the first drift applied: played samples per captured one), the delay stays and the past reference is
   * read again by that step, back over the segment: the canceller in use had chased an echo moving by the drift,
   * and kept ~10 dB less ERLE for seconds after it was corrected (bench/echo.mjs, ±208 ppm). Returns whether a
   * canceller was tried.
   */
  private realign(delaySamples: number, at: number, stretch?: number, early = false): boolean {
    const margin = Math.round((this.rate * DELAY_MARGIN_MS) / 1000);
    const shift = stretch === undefined ? Math.max(0, delaySamples - margin) : this.shift;
    const n = this.canceller.frameSamples;
    const done = at - this.carry.length;
    // (a stretched read looks up to FractionalReader.HALF samples, and the stretch itself, further back)
    const oldest = this.history.oldest + shift + (stretch === undefined ? 0 : 2 * FractionalReader.HALF);
    // (a drift's retraining goes back over the segment: its playback was continuous, the device as it is)
    const begin = stretch === undefined ? this.history.burstStart : this.segmentAt + shift;
    const from = Math.max(begin, oldest, done - this.rate * RELEARN_S);
    const start = done - Math.floor(Math.max(0, done - from) / n) * n;
    const span = Math.min(done - start, this.rate);
    const refuse = () => {
      if (stretch === undefined && !early) this.estimator?.reject();
    };
    if (!this.spare || span < this.rate / 2) {
      refuse();
      return false;
    }
    this.spare.reset();
    const mic = this.history.micAt(start, done - start);
    const ref =
      stretch === undefined
        ? this.history.playedAt(start, done - start, shift)
        : this.history.playedStretched(start, done - start, shift, stretch);
    // over the same audio again: speexdsp's filter learns on from where it got to (data reuse), ending at `done`;
    // more often while no trained canceller has been confirmed: the first second's audio is short
    const passes = this.early ? EARLY_PASSES : TRAIN_PASSES;
    let tried = this.spare.process(mic, ref);
    for (let pass = 1; pass < passes; pass++) tried = this.spare.process(mic, ref);
    const before = meanSquare(this.history.cleanedAt(done - span, span));
    const after = meanSquare(tried.subarray(tried.length - span));
    // a delay must do better by 1 dB; so must going back to none (the estimates stopped confirming the delay: the
    // near end may be talking over it), unless the hold is on (the canceller in use has not reached 15 dB since the
    // playback began: a delay gone stale after a restart); then not being 1 dB worse is enough
    const stale = stretch === undefined && shift === 0 && this.learning;
    // the last second of what it was trained on, to know whether it learnt the room (15 dB)
    const micE = meanSquare(mic.subarray(mic.length - span));
    const learnt = micE >= after * 10 ** 1.5;
    // an early trial is taken only once it learnt the room
    if (early && !learnt) return true;
    if (stale ? after > before * 10 ** 0.1 : after * 10 ** 0.1 > before) {
      refuse();
      return true;
    }
    // (the commit of the delay a confirmed early trial took, within 1 ms, is the first delay's trial of before)
    const commitOfEarly = stretch === undefined && !this.early && Math.abs(shift - this.shift) <= this.rate / 1000;
    [this.canceller, this.spare] = [this.spare, this.canceller];
    this.shift = shift;
    this.watch?.forget();
    this.saved.length = 0;
    this.changeAt = undefined;
    this.refCarry = this.history.playedAt(done, this.carry.length, shift);
    // the canceller taken over has learnt the room already when its last second measures 15 dB: a short hold
    const refE = meanSquare(ref.subarray(ref.length - span));
    // while early, one that learnt the room is held until `confirmEarly` measured the live audio that follows
    const confirming = this.early && learnt;
    if (confirming) {
      this.confirmFrom = done;
      this.confirmHeard.length = 0;
    }
    // that one's hold, as then, is confirmed on two blocks (over 0.1 s it held ~1.2 s at ±208 ppm: not corrected yet)
    const confirmMs = confirming ? Number.POSITIVE_INFINITY : (CONFIRM_BLOCKS * n * 1000) / this.rate;
    if (learnt) this.guard?.learntFrom(micE, refE, confirmMs, commitOfEarly || undefined);
    else this.guard?.restart();
    this.learntShift = learnt ? shift : undefined;
    return true;
  }

  /**
   * Until a trained canceller has measured 15 dB, each new confident estimate of the delay (one, not the three in a
   * row a commit needs; the committed delay once there is one) is tried at once over the audio so far, as it grows:
   * taken only if its last second measures 15 dB, else nothing changes and the next estimate tries again on more
   * audio. The first delay was tried only once three estimates agreed, ~1 s after the first echo, and a trial that
   * fell short (all at once: RT60 600 ms, tanh, +208 ppm) left the hold on until the drift was corrected.
   */
  private tryEarly(at: number): void {
    const e = this.estimator!.last!;
    if (!this.early || this.earlyTrials >= EARLY_TRIALS || !this.estimator!.confident(e)) return;
    const committed = this.estimator!.delaySamples;
    const found = Math.round((e.delayMs * this.rate) / 1000);
    // a committed delay is tried again only as the estimates confirm it
    if (committed !== undefined && Math.abs(found - committed) > this.rate / 1000) return;
    this.earlyTrials++;
    this.realign(committed ?? found, at, undefined, true);
  }

  /**
   * After an early take-over that learnt the room: CONFIRM_BLOCKS blocks of live echo that follow (each block's output
   * lined up with its input, one block later) must measure 15 dB; then the hold ends and early trials stop, else
   * the hold goes back to its first learning and the next estimate tries again. Blocks that hear no echo-level sound
   * are passed over (a long output latency: the echo not come yet). (The hold's own measure, the output a block
   * behind its input, read 15 dB on two blocks where the echo was growing, and 7-11 dB followed: a false barge-in.)
   */
  private confirmEarly(): void {
    const frame = this.canceller.frameSamples;
    const done = this.history.total - this.carry.length;
    const heard = this.confirmHeard;
    for (let from = this.confirmFrom; from !== undefined && done >= from + 2 * frame; from = this.confirmFrom) {
      this.confirmFrom = from + frame;
      const mic = meanSquare(this.history.micAt(from, frame));
      if (mic < QUIET) continue;
      heard.push([mic, meanSquare(this.history.cleanedAt(from + frame, frame))]);
      if (heard.length < CONFIRM_BLOCKS) continue;
      this.confirmFrom = undefined;
      const [micE, outE] = heard.reduce(([m, o], [bm, bo]) => [m + bm, o + bo], [0, 0]);
      heard.length = 0;
      if (micE < outE * 10 ** 1.5) {
        this.guard?.restart();
        return;
      }
      this.early = false;
      this.guard?.release();
    }
  }

  /**
   * The suppressor works while the start-up hold would (no hold has ended yet), once a trained canceller measured
   * 15 dB on what it learnt from (the reference lined up by a delay that was shown to be the echo's: a confident
   * estimate alone, taken at once, was a wrong one under a loaded scheduler and the echo leaked), in the first burst
   * of playback only and for SUPPRESS_MAX_S at most; else the hold, as before it (in bench/echo.mjs it worked 0.9 s at
   * most).
   */
  private suppressorOn(): boolean {
    const { suppressor, guard, history } = this;
    if (!suppressor || !guard?.learning || guard.heard || this.learntShift !== this.shift) return false;
    if (suppressor.suppressedSamples >= this.rate * SUPPRESS_MAX_S) return false;
    return this.firstBurst === history.burstStart;
  }

  /** the timeline's offset over the frame captured from `at` (for the fine blocks), and where its segment changed */
  private noteOffset(at: number, before: number, n: number): void {
    this.offsets.push([at, before, this.timeline.offset]);
    while (this.offsets.length > 1 && this.offsets[0]![0] < this.history.oldest) this.offsets.shift();
    if (this.timeline.segment !== this.segmentSeen) {
      this.segmentSeen = this.timeline.segment;
      this.segmentAt = at + n;
    }
  }

  /** the timeline's offset (ms) at microphone sample `p`, between its frame's ends */
  private offsetMsAt(p: number): number {
    let [at, before, after] = this.offsets[0]!;
    for (const o of this.offsets) if (o[0] <= p) [at, before, after] = o;
    const next = this.offsets.find((o) => o[0] > at)?.[0] ?? this.history.total;
    return ((before + ((after - before) * (p - at)) / Math.max(1, next - at)) * 1000) / this.rate;
  }

  /**
   * Every FINE_HOP of playback with a bulk delay known, the echo's delay at the full rate over the last FINE_BLOCK
   * (FineDelay), less the correction applied so far (the timeline's offset), goes to the drift estimator: one line
   * per segment. A drift is applied to the reference from the next frame on once it stands out of its error (three
   * times it, and 10 ppm: ~0.1 ms in 10 s needs no correction), then again whenever the estimate moves by twice its
   * error (1 ppm at least: 2 ppm off costs speexdsp ~8 dB of ERLE in bench/echo.mjs, 5 ppm ~15 dB).
   */
  private trackDrift(at: number): void {
    const { fine, drift, history } = this;
    // the committed delay, or before one is the last confident estimate (the track starts ~0.5 s sooner)
    const e0 = this.estimator?.last;
    const bulk =
      this.estimator?.delaySamples ??
      (e0 && this.estimator!.confident(e0) ? Math.round((e0.delayMs * this.rate) / 1000) : undefined);
    if (!fine || !drift || bulk === undefined || history.total < this.fineNext) return;
    this.fineNext = history.total + Math.round((this.rate * FINE_HOP_MS) / 1000);
    const end = history.total;
    const start = end - fine.block;
    const from = start - fine.window;
    // the whole block within one segment (its reference placed back to back) and held
    if (from - bulk < Math.max(history.oldest, this.segmentAt)) return;
    const ref = history.playedAt(from, fine.block + 2 * fine.window, bulk);
    // the reference after the newest captured sample is not there yet
    ref.fill(0, Math.max(0, end - (from - bulk)));
    // the time the estimate stands for: the block's centre of the playback's energy (the delay moves within the
    // block while the drift is not corrected, and the correlation weighs the loud parts)
    let sum = 0;
    let moment = 0;
    for (let i = 0; i < fine.block; i++) {
      const v = ref[fine.window + i]! ** 2;
      sum += v;
      moment += i * v;
    }
    if (sum / fine.block < QUIET) return;
    const e = fine.measure(history.micAt(start, fine.block), ref, bulk);
    // a peak at either end of the lags looked at may be the flank of one outside them
    const edge = Math.abs(e.delayMs - (bulk * 1000) / this.rate) > FINE_WINDOW_MS - 1;
    if (e.confidence < FINE_CONFIDENCE || edge) return;
    // (the delay a change is measured from, as the canceller settled on it)
    if (this.watch?.settled && !this.watch.suppressing) this.anchorMs = e.delayMs;
    const mid = start + moment / sum;
    drift.add(this.segmentSeen, mid / this.rate, e.delayMs, this.offsetMsAt(mid));
    const d = drift.estimate();
    if (!d || d.errorPpm > MAX_DRIFT_ERROR_PPM || Math.abs(d.ppm) > MAX_DRIFT_PPM) return;
    const applied = this.driftApplied;
    if (applied === undefined && Math.abs(d.ppm) < Math.max(10, 3 * d.errorPpm)) return;
    if (applied !== undefined && Math.abs(d.ppm - applied) < Math.max(1, 2 * d.errorPpm)) return;
    this.timeline.setDrift(d.ppm);
    this.driftApplied = d.ppm;
    // the canceller adapted meanwhile to an echo moving by the drift: one trained again over the past seconds with
    // the reference read as it is from now on takes over if it does better
    if (!this.retrained) this.retrained = this.realign(0, at, 1 + d.ppm / 1e6);
  }

  free(): void {
    this.canceller.free();
    this.spare?.free();
  }
}

function samples(b: Buffer): Int16Array {
  const even = b.length - (b.length % 2);
  if (b.byteOffset % 2 === 0) return new Int16Array(b.buffer, b.byteOffset, even / 2);
  return new Int16Array(Uint8Array.from(b.subarray(0, even)).buffer);
}

function concat(a: Int16Array, b: Int16Array): Int16Array {
  const out = new Int16Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
