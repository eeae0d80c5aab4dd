import { defineCommand } from '../../cmdutil/command.js';
import { AUDIO } from '../../cmdutil/flag-sets.js';
import { InterruptedError } from '../../core/errors.js';
import { number, require } from '../../core/validate.js';
import type { Context } from '../../runtime/context.js';
import type { AudioSink } from '../../audio/sink.js';
import type { AudioSource } from '../../audio/source.js';
import type { Level } from '../../audio/level.js';

const RATE = 24_000;
const FRAME_MS = 100;
/** a recording whose peak stays under this is reported as silence */
const SILENT_DBFS = -60;
/** --aec's probe: long enough to find the delay and converge (a drift needs more: --seconds up to 30) */
const AEC_S = 8;
const AEC_MIN_S = 4;

export default defineCommand({
  description:
    'Records from the microphone, then plays the recording back on the speaker, showing the level as it goes: ' +
    'a meter redrawn in place on a terminal; in a pipe one line per 100 ms (phase, seconds, RMS and peak in ' +
    'dBFS, tab-separated); --json one object per 100 ms and a summary. Both devices are chosen and checked ' +
    'before recording starts. A recording that stays under -60 dBFS is reported (a muted or wrong microphone). ' +
    'With --aec, the echo path instead: a probe plays on the speaker while the microphone records, through the ' +
    "echo canceller of `realtime talk --aec`; reported are the echo's delay, the clock drift between the two " +
    'devices (when the probe was long enough to measure it), the ERLE reached and a verdict (good, fair, poor, ' +
    'no_echo). Nothing is sent to the API.',
  options: [
    AUDIO.inputDevice,
    AUDIO.outputDevice,
    {
      flags: '--seconds <n>',
      description: `how long to record, 0.5 to 30 seconds (with --aec the probe: ${AEC_MIN_S} to 30, default ${AEC_S})`,
      default: 2,
      parse: number({ min: 0.5, max: 30 }),
    },
    {
      flags: '--aec',
      description: 'measure the echo path of these devices for `realtime talk --aec` (delay, drift, ERLE, verdict)',
    },
  ],
  examples: ['svc audio test', 'svc audio test --input-device 1 --output-device headset', 'svc audio test --aec'],
  async run(ctx, _args, opts) {
    const fmt = { sampleRate: RATE, channels: 1 };
    const givenSeconds = ctx.givenOptions.some((g) => g.name === 'seconds');
    // the canceller needs a second or two of echo to find the delay and converge
    if (opts.aec && givenSeconds)
      require(opts.seconds >= AEC_MIN_S, '--seconds', opts.seconds, `${AEC_MIN_S} to 30 with --aec`);
    const { chooseDevice } = await import('../../audio/choose.js');
    const input = await chooseDevice('input', opts.inputDevice, { env: ctx.env });
    const output = await chooseDevice('output', opts.outputDevice, { env: ctx.env });
    const { checkPlayback, openSink } = await import('../../audio/sink.js');
    // both ends before recording: a wrong speaker is told before the user speaks
    await checkPlayback(fmt, output, ctx.env);
    const { openSource } = await import('../../audio/source.js');
    const source = await openSource('mic', { ...fmt, chosen: input, env: ctx.env, signal: ctx.signal });
    if (opts.aec) {
      const sink = await openSink('speaker', { format: fmt, chosen: output, env: ctx.env });
      return echoTest(ctx, source, sink, givenSeconds ? opts.seconds : AEC_S, [input?.name, output?.name]);
    }
    const meter = await Meter.create(ctx);
    const recorded = await record(source, opts.seconds, meter);
    if (ctx.signal.aborted) throw new InterruptedError();
    const got = recorded.reduce((n, f) => n + f.length, 0) / 2 / RATE;
    if (got < opts.seconds) ctx.out.warn(`the microphone stopped after ${Math.round(got * 100) / 100} s`);
    const sink = await openSink('speaker', { format: fmt, chosen: output, env: ctx.env });
    await play(sink, recorded, meter, ctx.signal);
    const whole = meter.summary(recorded, output?.name ?? 'default', input?.name ?? 'default');
    if (whole.peak < SILENT_DBFS)
      ctx.out.warn(
        `the recording is silent (peak ${whole.peak} dBFS): the microphone may be muted or another device; ` +
          '`svc audio devices` lists them, choose one with --input-device',
      );
    return 0;
  },
});

/** --aec: the probe played and recorded through the canceller; the figures on stdout, the advice on stderr. */
async function echoTest(
  ctx: Context,
  source: AudioSource,
  sink: AudioSink,
  seconds: number,
  [input, output]: (string | undefined)[],
): Promise<number> {
  const { EchoPath } = await import('../../audio/echo-canceller.js');
  const { checkEcho } = await import('../../audio/echo-check.js');
  // the start-up hold off: the ERLE reported is the canceller's own
  const path = await EchoPath.open({ sampleRate: RATE, startupSuppressDb: 0 });
  ctx.out.info(`playing a probe for ${seconds} s on ${output ?? 'default'}, recording on ${input ?? 'default'}`);
  try {
    const r = await checkEcho(source, sink, path, { rate: RATE, seconds, signal: ctx.signal });
    if (ctx.signal.aborted) throw new InterruptedError();
    const { advice, ...figures } = r;
    const devices = { input_device: input ?? 'default', output_device: output ?? 'default' };
    if (ctx.out.json) ctx.out.printJson({ ...figures, advice, ...devices });
    else {
      ctx.out.details(Object.entries({ ...figures, ...devices }));
      ctx.out.info(advice);
    }
    return 0;
  } finally {
    path.free();
  }
}

async function record(source: AudioSource, seconds: number, meter: Meter): Promise<Buffer[]> {
  const frames: Buffer[] = [];
  const want = Math.round(seconds * RATE) * 2;
  let got = 0;
  try {
    for await (const f of source.frames(FRAME_MS)) {
      const frame = f.subarray(0, Math.min(f.length, want - got));
      frames.push(frame);
      got += frame.length;
      meter.show('record', got / 2 / RATE, frame);
      if (got >= want) break;
    }
  } finally {
    await source.close();
    meter.end();
  }
  return frames;
}

/** The recording at real time, so that the meter follows what is heard. */
async function play(sink: AudioSink, frames: Buffer[], meter: Meter, signal: AbortSignal): Promise<void> {
  const { Pacer } = await import('../../audio/pacing.js');
  const pacer = new Pacer(FRAME_MS);
  let done = 0;
  try {
    for (const f of frames) {
      await pacer.tick(signal);
      if (signal.aborted) break;
      await sink.write(f);
      done += f.length;
      meter.show('play', done / 2 / RATE, f);
    }
  } catch (err) {
    await sink.abort();
    throw err;
  } finally {
    meter.end();
  }
  if (signal.aborted) {
    await sink.abort();
    throw new InterruptedError();
  }
  await sink.end();
}

/** The level as it goes: redrawn on a terminal, a row per frame in a pipe, an object per frame with --json. */
class Meter {
  private live = false;
  private level?: typeof import('../../audio/level.js');

  constructor(private readonly ctx: Context) {}

  private async load() {
    this.level ??= await import('../../audio/level.js');
    return this.level;
  }

  show(phase: 'record' | 'play', at: number, frame: Buffer): void {
    const { pcmLevel, levelBar } = this.level!;
    const l = pcmLevel(frame);
    const t = Math.round(at * 100) / 100;
    const out = this.ctx.out;
    if (out.json) out.printJsonLine({ phase, seconds: t, rms_dbfs: l.rms, peak_dbfs: l.peak });
    else if (out.stdoutIsTTY) {
      const what = phase === 'record' ? 'recording' : 'playing  ';
      out.control('\r\u001b[2K');
      out.write(`${what} ${t.toFixed(1).padStart(4)} s  ${levelBar(l.rms, 30)}  ${fmtDb(l.rms)} dBFS`);
      this.live = true;
    } else out.line([phase, t.toFixed(2), l.rms.toFixed(1), l.peak.toFixed(1)].join('\t'));
  }

  end(): void {
    if (this.live) this.ctx.out.write('\n');
    this.live = false;
  }

  summary(frames: Buffer[], played: string, recorded: string): Level {
    const all = Buffer.concat(frames);
    const l = this.level!.pcmLevel(all);
    const seconds = Math.round((all.length / 2 / RATE) * 100) / 100;
    if (this.ctx.out.json)
      this.ctx.out.printJsonLine({
        phase: 'summary',
        seconds,
        rms_dbfs: l.rms,
        peak_dbfs: l.peak,
        input_device: recorded,
        output_device: played,
      });
    else
      this.ctx.out.info(
        `recorded ${seconds} s on ${recorded} (RMS ${fmtDb(l.rms)}, peak ${fmtDb(l.peak)} dBFS), played on ${played}`,
      );
    return l;
  }

  static async create(ctx: Context): Promise<Meter> {
    const m = new Meter(ctx);
    await m.load();
    return m;
  }
}

function fmtDb(db: number): string {
  return db.toFixed(1).padStart(5);
}
